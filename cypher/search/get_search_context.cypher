// Vector and full-text search of several kinds in one query (hybrid_search and, with
// $context, search_context: one network round trip for what retrieval reads before it
// ranks): for each
// kind asked, the shared vector index and the shared full-text index are each asked for
// their best $fetch, and the hits of the tenant (and of $scope, when it is not null) are
// kept, best first (then by id), at most $k (an entity is in the scope when its id is in
// $scope; a turn or a chunk when it MENTIONS such an entity, as in the one-kind
// queries); `fetched` says how many the index gave, so
// the caller can tell whether a larger fetch could find more (it then continues with
// the one-kind queries, search/query_<kind>_vectors and _text, from a larger fetch).
// A branch runs only when its index parameter is not null ($<kind>_vector_index,
// $<kind>_text_index): the caller names the indexes it may use (an ONLINE vector index
// of the query's dimension; the full-text index when the query has words). The others
// give a row the caller ignores.
// Scores as in the one-kind queries: the vector procedure's (1 + cos) / 2, Lucene's BM25.
// `dimension` is the tenant's stored dimension for the kind's vectors (null: none yet).
// Labels are written out per kind: a dynamic label would be planned as a scan.
// The full-text indexes are eventually consistent (schema.EVENTUALLY_CONSISTENT): wait
// for the updates of committed writes first, so a search finds every node written.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL () {
  WITH $entity_vector_index AS index
  WHERE index IS NOT NULL
  CALL db.index.vector.queryNodes(index, $fetch, $vector) YIELD node, score
  WITH count(*) AS fetched,
       collect(CASE
                 WHEN node.tenant = $tenant AND ($scope IS NULL OR node.id IN $scope)
                   THEN {id: node.id, score: score}
               END) AS kept
  RETURN 'entity' AS kind, 'vector' AS how, fetched, kept,
         head(COLLECT {
           MATCH (n:Entity {tenant: $tenant})
           WHERE n.embedding_dim IS NOT NULL
           RETURN n.embedding_dim
           LIMIT 1
         }) AS dimension
  UNION ALL
  WITH $entity_text_index AS index
  WHERE index IS NOT NULL
  CALL db.index.fulltext.queryNodes(index, $text, {limit: $fetch}) YIELD node, score
  WITH count(*) AS fetched,
       collect(CASE
                 WHEN node.tenant = $tenant AND ($scope IS NULL OR node.id IN $scope)
                   THEN {id: node.id, score: score}
               END) AS kept
  RETURN 'entity' AS kind, 'text' AS how, fetched, kept, null AS dimension
  UNION ALL
  WITH $turn_vector_index AS index
  WHERE index IS NOT NULL
  CALL db.index.vector.queryNodes(index, $fetch, $vector) YIELD node, score
  WITH count(*) AS fetched,
       collect(CASE
                 WHEN node.tenant = $tenant
                      AND ($scope IS NULL
                           OR EXISTS { MATCH (node)-[:MENTIONS]->(e:Entity {tenant: $tenant})
                                       WHERE e.id IN $scope })
                   THEN {id: node.id, score: score}
               END) AS kept
  RETURN 'turn' AS kind, 'vector' AS how, fetched, kept,
         head(COLLECT {
           MATCH (n:Turn {tenant: $tenant})
           WHERE n.embedding_dim IS NOT NULL
           RETURN n.embedding_dim
           LIMIT 1
         }) AS dimension
  UNION ALL
  WITH $turn_text_index AS index
  WHERE index IS NOT NULL
  CALL db.index.fulltext.queryNodes(index, $text, {limit: $fetch}) YIELD node, score
  WITH count(*) AS fetched,
       collect(CASE
                 WHEN node.tenant = $tenant
                      AND ($scope IS NULL
                           OR EXISTS { MATCH (node)-[:MENTIONS]->(e:Entity {tenant: $tenant})
                                       WHERE e.id IN $scope })
                   THEN {id: node.id, score: score}
               END) AS kept
  RETURN 'turn' AS kind, 'text' AS how, fetched, kept, null AS dimension
  UNION ALL
  WITH $chunk_vector_index AS index
  WHERE index IS NOT NULL
  CALL db.index.vector.queryNodes(index, $fetch, $vector) YIELD node, score
  WITH count(*) AS fetched,
       collect(CASE
                 WHEN node.tenant = $tenant
                      AND ($scope IS NULL
                           OR EXISTS { MATCH (node)-[:MENTIONS]->(e:Entity {tenant: $tenant})
                                       WHERE e.id IN $scope })
                   THEN {id: node.id, score: score}
               END) AS kept
  RETURN 'chunk' AS kind, 'vector' AS how, fetched, kept,
         head(COLLECT {
           MATCH (n:Chunk {tenant: $tenant})
           WHERE n.embedding_dim IS NOT NULL
           RETURN n.embedding_dim
           LIMIT 1
         }) AS dimension
  UNION ALL
  WITH $chunk_text_index AS index
  WHERE index IS NOT NULL
  CALL db.index.fulltext.queryNodes(index, $text, {limit: $fetch}) YIELD node, score
  WITH count(*) AS fetched,
       collect(CASE
                 WHEN node.tenant = $tenant
                      AND ($scope IS NULL
                           OR EXISTS { MATCH (node)-[:MENTIONS]->(e:Entity {tenant: $tenant})
                                       WHERE e.id IN $scope })
                   THEN {id: node.id, score: score}
               END) AS kept
  RETURN 'chunk' AS kind, 'text' AS how, fetched, kept, null AS dimension
}
CALL (kept) {
  UNWIND kept AS hit
  WITH hit
  ORDER BY hit.score DESC, hit.id
  LIMIT $k
  RETURN collect(hit) AS hits
}
WITH collect({kind: kind, how: how, dimension: dimension, fetched: fetched, hits: hits})
       AS searches
// With $context (search_context): the window of the turn hits (as conversations/
// get_turn_window: each hit and the turns within $window_depth PARENT edges, paths bounded
// by 8 = MAX_TURN_WINDOW; null: no window), the ids of $scope that are not entities of
// the tenant, and what entities/get_entity_version reads. The caller asks for a window
// again if a turn ranking needs a larger fetch.
// Each part aggregates without a grouping key, so it gives one row even when it is not
// asked for (OPTIONAL CALL would say so more plainly, but Neo4j 5.26.0 fails to plan it
// here: "Did not find `searches` in the slot configuration").
CALL (searches) {
  UNWIND CASE
           WHEN $context AND $window_depth IS NOT NULL
             THEN [s IN searches WHERE s.kind = 'turn' | s.hits]
           ELSE []
         END AS hits
  UNWIND hits AS hit
  WITH DISTINCT hit.id AS turn_id
  MATCH (t:Turn {tenant: $tenant, id: turn_id})
  USING INDEX SEEK t:Turn(tenant, id)
  WITH t,
       [up = (t)-[:PARENT*1..8]->(a:Turn) WHERE length(up) <= $window_depth | a] AS before,
       [down = (d:Turn)-[:PARENT*1..8]->(t) WHERE length(down) <= $window_depth | d] AS after
  UNWIND [t] + before + after AS n
  WITH DISTINCT n
  ORDER BY n.created_at, n.id
  RETURN collect(n {.id, .session, .role, .speaker, .content, .summary, .turn_id,
                    created_at: toString(n.created_at), .trajectory_json, .artifacts_json,
                    .hidden_artifacts_json,
                    parent_id: head([(n)-[:PARENT]->(p:Turn) | p.id])}) AS window
}
CALL () {
  UNWIND CASE WHEN $context THEN coalesce($scope, []) ELSE [] END AS entity_id
  OPTIONAL MATCH (e:Entity {tenant: $tenant, id: entity_id})
  USING INDEX SEEK e:Entity(tenant, id)
  WITH entity_id, e
  WHERE e IS NULL
  RETURN collect(entity_id) AS unknown
}
CALL () {
  WITH $context AS context
  WHERE context
  MATCH (e:Entity {tenant: $tenant})
  RETURN count(e) AS count, max(e.updated_at) AS latest
}
RETURN searches, window, unknown, count, latest
