// Several vector and full-text searches, each narrowed to its scope, in one query
// (search_scoped: a bridge ranks the passages it reached by what their source leaves
// unanswered, one search per source). $searches: {vector (null: no vector side), text
// (a Lucene query, already escaped; null: no text side), k, scope (entity ids), entity,
// turn, chunk (the kinds asked)}. A search's candidates are its scope's nodes (an entity
// in the scope; a turn or a chunk that MENTIONS one), so both sides are exact: cosine
// against every candidate with a vector of the query's dimension (vector.similarity.cosine
// gives the vector index's (1 + cos) / 2), and the full-text index's hits (Lucene's BM25)
// kept to the candidates; each best first, then by id, at most k.
// `dimensions` are the tenant's stored dimensions per kind (null: no vector yet), for the
// caller's check. With $read, the chunks and turns hit are read (as get_chunks / get_turns).
// Labels are written out per kind: a dynamic label would be planned as a scan.
// The full-text indexes are eventually consistent: wait for the updates of committed writes.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL () {
  RETURN {
    entity: head(COLLECT { MATCH (n:Entity {tenant: $tenant}) WHERE n.embedding_dim IS NOT NULL
                           RETURN n.embedding_dim LIMIT 1 }),
    turn: head(COLLECT { MATCH (n:Turn {tenant: $tenant}) WHERE n.embedding_dim IS NOT NULL
                         RETURN n.embedding_dim LIMIT 1 }),
    chunk: head(COLLECT { MATCH (n:Chunk {tenant: $tenant}) WHERE n.embedding_dim IS NOT NULL
                          RETURN n.embedding_dim LIMIT 1 })
  } AS dimensions
}
UNWIND range(0, size($searches) - 1) AS position
WITH dimensions, position, $searches[position] AS s
CALL (s) {
  WITH s
  WHERE s.entity
  UNWIND s.scope AS entity_id
  MATCH (n:Entity {tenant: $tenant, id: entity_id})
  USING INDEX SEEK n:Entity(tenant, id)
  RETURN 'entity' AS kind, collect(DISTINCT n) AS nodes
  UNION ALL
  WITH s
  WHERE s.turn
  UNWIND s.scope AS entity_id
  MATCH (e:Entity {tenant: $tenant, id: entity_id})<-[:MENTIONS]-(n:Turn {tenant: $tenant})
  USING INDEX SEEK e:Entity(tenant, id)
  RETURN 'turn' AS kind, collect(DISTINCT n) AS nodes
  UNION ALL
  WITH s
  WHERE s.chunk
  UNWIND s.scope AS entity_id
  MATCH (e:Entity {tenant: $tenant, id: entity_id})<-[:MENTIONS]-(n:Chunk {tenant: $tenant})
  USING INDEX SEEK e:Entity(tenant, id)
  RETURN 'chunk' AS kind, collect(DISTINCT n) AS nodes
}
CALL (s, nodes) {
  UNWIND CASE WHEN s.vector IS NULL THEN [] ELSE nodes END AS n
  WITH n
  WHERE n.embedding_dim = size(s.vector)
  WITH n, vector.similarity.cosine(n.embedding, s.vector) AS score
  ORDER BY score DESC, n.id
  WITH collect({id: n.id, score: score}) AS hits
  RETURN hits[..s.k] AS vector_hits
}
CALL (s, kind, nodes) {
  WITH s, nodes,
       CASE kind
         WHEN 'entity' THEN $entity_text_index
         WHEN 'turn' THEN $turn_text_index
         ELSE $chunk_text_index
       END AS index
  WHERE s.text IS NOT NULL AND size(nodes) > 0
  CALL db.index.fulltext.queryNodes(index, s.text) YIELD node, score
  WITH node, score, nodes
  WHERE node.tenant = $tenant AND node IN nodes
  WITH node, score
  ORDER BY score DESC, node.id
  WITH collect({id: node.id, score: score}) AS hits
  RETURN hits[..s.k] AS text_hits
}
WITH dimensions, position, kind, vector_hits, text_hits
ORDER BY position, kind
WITH dimensions,
     collect({position: position, kind: kind, vector: vector_hits, text: text_hits}) AS searches
CALL (searches) {
  UNWIND CASE WHEN $read THEN [s IN searches WHERE s.kind = 'chunk'] ELSE [] END AS found
  UNWIND found.vector + found.text AS hit
  WITH DISTINCT hit.id AS chunk_id
  MATCH (c:Chunk {tenant: $tenant, id: chunk_id})
  USING INDEX SEEK c:Chunk(tenant, id)
  WITH c
  ORDER BY c.id
  RETURN collect(c {.id, .text, .source, .attributes_json,
                    created_at: toString(c.created_at)}) AS chunks
}
CALL (searches) {
  UNWIND CASE WHEN $read THEN [s IN searches WHERE s.kind = 'turn'] ELSE [] END AS found
  UNWIND found.vector + found.text AS hit
  WITH DISTINCT hit.id AS turn_id
  MATCH (t:Turn {tenant: $tenant, id: turn_id})
  USING INDEX SEEK t:Turn(tenant, id)
  WITH t
  ORDER BY t.id
  RETURN collect(t {.id, .session, .role, .speaker, .content, .summary, .turn_id,
                    created_at: toString(t.created_at),
                    .trajectory_json, .artifacts_json, .hidden_artifacts_json,
                    parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])}) AS turns
}
RETURN dimensions, searches, chunks, turns
