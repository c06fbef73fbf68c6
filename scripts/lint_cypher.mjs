#!/usr/bin/env node
// Lint every cypher/**/*.cypher file with Neo4j's own Cypher front end
// (@neo4j-cypher/language-support): the parser plus the semantic analysis, for Cypher 5
// (what Neo4j 5.26 runs). Every diagnostic fails the run except undeclared parameters
// (our queries take all values as $params, which a linter cannot know).
//
// The schema handed to the linter names graphmem's labels, relationship types and
// property keys, so a misspelt property or label is reported too. Functions and
// procedures come from the package's registry of Neo4j built-ins.
//
// Usage: node scripts/lint_cypher.mjs [file-or-dir ...]   (default: cypher/)
// Prints file:line:column: severity: message per diagnostic; exits 1 if any.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isNotParamError, lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const LABELS = ['Entity', 'Turn', 'Conversation', 'Chunk', 'Record'];
// __TYPE__: the slot a relationship type is written into (graphmem/backends/neo4j/queries.py).
const RELATIONSHIP_TYPES = ['PARENT', 'HEAD', 'MENTIONS', '__TYPE__'];
const ROW_KEYS = [
  'index', 'props', 'source_id', 'target_id', 'parent_id', 'head_id', 'turns', 'node', 'hop',
  'frontier', 'seen', 'found', 'node_id', 'entity_id', 'entity_ids', 'vector', 'score',
];
const PROPERTY_KEYS = [
  // every node
  'tenant', 'id', 'created_at', 'embedding',
  // Entity, Turn and Chunk: what the full-text index covers, and the embedding's length
  'search_text', 'embedding_dim',
  // Entity
  'type', 'name', 'name_lower', 'name_lower_long', 'attributes_json', 'updated_at',
  // entity relationships
  'session_id', 'confidence', 'source', 'confirmed', 'evidence', 'valid_at', 'invalid_at',
  'expired_at',
  // Turn and Conversation
  'session', 'role', 'speaker', 'content', 'summary', 'turn_id', 'seq', '_lock',
  'trajectory_json', 'artifacts_json', 'hidden_artifacts_json',
  // Chunk
  'text', 'attributes_json',
  // Record
  'kind', 'data_json', 'owner', 'blob',
  // SHOW INDEXES columns
  'state', 'populationPercent', 'labelsOrTypes', 'properties', 'options', 'entityType',
  // Keys of the row maps passed as parameters ($rows, $links, ...): the linter cannot tell
  // `row.key` on a map from a property read, so they are declared here too.
  ...ROW_KEYS,
];

// Neo4j's built-in functions and procedures, as the package records them for Cypher 5.
const registry = testData.mockSchema;
const SCHEMA = {
  labels: LABELS,
  relationshipTypes: RELATIONSHIP_TYPES,
  propertyKeys: PROPERTY_KEYS,
  functions: registry.functions,
  procedures: registry.procedures,
  defaultLanguage: 'CYPHER 5',
};

function cypherFiles(path) {
  const stat = statSync(path);
  if (stat.isFile()) return path.endsWith('.cypher') ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => cypherFiles(join(path, entry)));
}

function lineAndColumn(text, offset) {
  const before = text.slice(0, offset).split('\n');
  return [before.length, before[before.length - 1].length + 1];
}

const roots = process.argv.slice(2);
const files = (roots.length ? roots : ['cypher']).flatMap(cypherFiles);
if (files.length === 0) {
  console.error('lint_cypher: no .cypher files found');
  process.exit(1);
}

let problems = 0;
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  if (!text.trim()) {
    console.log(`${relative('.', file)}:1:1: error: empty query file`);
    problems += 1;
    continue;
  }
  const { diagnostics } = lintCypherQuery(text, SCHEMA);
  for (const d of diagnostics.filter(isNotParamError)) {
    const [line, column] = lineAndColumn(text, d.offsets.start);
    const severity = d.severity === 1 ? 'error' : 'warning';
    console.log(`${relative('.', file)}:${line}:${column}: ${severity}: ${d.message.replace(/\s+/g, ' ')}`);
    problems += 1;
  }
}
console.log(`lint_cypher: ${files.length} files, ${problems} problems`);
process.exit(problems ? 1 : 0);
