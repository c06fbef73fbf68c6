// What retrieval reads after it has ranked the search hits (gather): one statement, one
// network round trip, answering exactly what its parts answer (graphmem.backends.composed:
// get_mentions, the walk of expand from the seeds, find_mentioning, get_chunks, get_turns,
// get_entities).
// $chunk_mentions / $turn_mentions: null (not asked) or distinct ids whose mentions are
// read; $seeds: distinct ids to walk from (those that are not entities are left out, as
// gather does); $seed_mentions: also walk from the entities those mentions name (within
// $within when it is not null); the walk: $depth, $rel_types, $direction, $within,
// $max_nodes and $now as in traversal/expand_entities; $reach_chunks / $reach_turns: read
// what mentions the walk's members, the first $mentioning_limit of each; $chunk_ids,
// $turn_ids, $entity_ids: distinct ids of nodes to return. Every node is found through
// the (tenant, id) uniqueness index.
CALL () {
  UNWIND coalesce($chunk_mentions, []) AS node_id
  MATCH (n:Chunk {tenant: $tenant, id: node_id})-[:MENTIONS]->(e:Entity {tenant: $tenant})
  USING INDEX SEEK n:Chunk(tenant, id)
  WITH node_id, e.id AS entity_id
  ORDER BY node_id, entity_id
  WITH node_id, collect(entity_id) AS entity_ids
  RETURN collect({node_id: node_id, entity_ids: entity_ids}) AS chunk_mentions
}
CALL () {
  UNWIND coalesce($turn_mentions, []) AS node_id
  MATCH (n:Turn {tenant: $tenant, id: node_id})-[:MENTIONS]->(e:Entity {tenant: $tenant})
  USING INDEX SEEK n:Turn(tenant, id)
  WITH node_id, e.id AS entity_id
  ORDER BY node_id, entity_id
  WITH node_id, collect(entity_id) AS entity_ids
  RETURN collect({node_id: node_id, entity_ids: entity_ids}) AS turn_mentions
}
WITH chunk_mentions, turn_mentions,
     $seeds + CASE
       WHEN $seed_mentions
         THEN [id IN reduce(ids = [], m IN chunk_mentions + turn_mentions | ids + m.entity_ids)
               WHERE $within IS NULL OR id IN $within]
       ELSE []
     END AS walk_from
CALL (walk_from) {
  UNWIND walk_from AS seed_id
  MATCH (s:Entity {tenant: $tenant, id: seed_id})
  USING INDEX SEEK s:Entity(tenant, id)
  RETURN collect(DISTINCT s) AS seeds
}
// The walk of traversal/expand_entities (see there), from the seeds that are entities.
WITH chunk_mentions, turn_mentions, seeds, reduce(
  state = {frontier: seeds, seen: seeds, found: []},
  hop IN range(1, $depth) |
  CASE
    WHEN size(state.frontier) = 0 OR size(state.seen) >= $max_nodes THEN state
    ELSE head([reached IN [COLLECT {
        UNWIND state.frontier AS f
        MATCH (f)-[r]-(m:Entity {tenant: $tenant})
        WHERE ($direction = 'both'
               OR ($direction = 'out' AND startNode(r) = f)
               OR ($direction = 'in' AND endNode(r) = f))
          AND ($rel_types IS NULL OR type(r) IN $rel_types)
          AND (r.valid_at IS NULL OR r.valid_at <= $now)
          AND (r.invalid_at IS NULL OR $now < r.invalid_at)
          AND (r.expired_at IS NULL OR $now < r.expired_at)
          AND ($within IS NULL OR m.id IN $within)
        WITH DISTINCT m
        WHERE NOT m IN state.seen
        RETURN m
      }] | {
        frontier: reached,
        seen: state.seen + reached,
        found: state.found + [m IN reached | {node: m, hop: hop}]
      }])
  END
) AS state
CALL (state, seeds) {
  UNWIND state.found AS item
  WITH item.node AS n, item.hop AS hop
  ORDER BY hop, n.id
  // The cap leaves room for the seeds (LIMIT cannot take a computed value: a slice does).
  WITH collect({node: n, hop: hop}) AS ordered
  UNWIND ordered[..(CASE WHEN $max_nodes > size(seeds) THEN $max_nodes - size(seeds)
                         ELSE 0 END)] AS item
  WITH item.node AS n, item.hop AS hop
  RETURN collect(n) AS reached_nodes,
         collect(n {.id, .type, .name, .attributes_json,
                    created_at: toString(n.created_at),
                    updated_at: toString(n.updated_at), hop: hop})
           AS reached
}
WITH chunk_mentions, turn_mentions, seeds, reached, seeds + reached_nodes AS members
CALL (members) {
  WITH members
  WHERE $reach_chunks
  UNWIND members AS member
  MATCH (member)<-[:MENTIONS]-(n:Chunk {tenant: $tenant})
  WITH member.id AS entity_id, n.id AS node_id
  ORDER BY entity_id, node_id
  WITH entity_id, collect(node_id) AS node_ids
  RETURN collect({entity_id: entity_id, node_ids: node_ids[..$mentioning_limit]})
           AS mentioning_chunks
}
CALL (members) {
  WITH members
  WHERE $reach_turns
  UNWIND members AS member
  MATCH (member)<-[:MENTIONS]-(n:Turn {tenant: $tenant})
  WITH member.id AS entity_id, n.id AS node_id
  ORDER BY entity_id, node_id
  WITH entity_id, collect(node_id) AS node_ids
  RETURN collect({entity_id: entity_id, node_ids: node_ids[..$mentioning_limit]})
           AS mentioning_turns
}
CALL () {
  UNWIND $chunk_ids AS chunk_id
  MATCH (c:Chunk {tenant: $tenant, id: chunk_id})
  USING INDEX SEEK c:Chunk(tenant, id)
  RETURN collect(c {.id, .text, .source, .attributes_json,
                    created_at: toString(c.created_at)}) AS chunks
}
CALL () {
  UNWIND $turn_ids AS turn_id
  MATCH (t:Turn {tenant: $tenant, id: turn_id})
  USING INDEX SEEK t:Turn(tenant, id)
  RETURN collect(t {.id, .session, .role, .speaker, .content, .summary, .turn_id,
                    created_at: toString(t.created_at),
                    .trajectory_json, .artifacts_json, .hidden_artifacts_json,
                    parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])}) AS turns
}
CALL () {
  UNWIND $entity_ids AS entity_id
  MATCH (e:Entity {tenant: $tenant, id: entity_id})
  USING INDEX SEEK e:Entity(tenant, id)
  RETURN collect(e {.id, .type, .name, .attributes_json,
                    created_at: toString(e.created_at),
                    updated_at: toString(e.updated_at)}) AS entities
}
RETURN chunk_mentions, turn_mentions,
       [n IN seeds | n {.id, .type, .name, .attributes_json,
                        created_at: toString(n.created_at), updated_at: toString(n.updated_at)}]
         AS seeds,
       reached,
       [n IN members |
         [(n)-[r]->(m:Entity {tenant: $tenant})
          WHERE m IN members
            AND ($rel_types IS NULL OR type(r) IN $rel_types)
            AND (r.valid_at IS NULL OR r.valid_at <= $now)
            AND (r.invalid_at IS NULL OR $now < r.invalid_at)
            AND (r.expired_at IS NULL OR $now < r.expired_at)
          | r {.attributes_json, .session_id, .confidence, .source, .confirmed, .evidence,
               valid_at: toString(r.valid_at), invalid_at: toString(r.invalid_at),
               created_at: toString(r.created_at), expired_at: toString(r.expired_at),
               source_id: n.id, target_id: m.id, type: type(r)}]] AS rels,
       mentioning_chunks, mentioning_turns, chunks, turns, entities
