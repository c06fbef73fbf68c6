// Vector and full-text search of several kinds in one query (hybrid_search): for each
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
  // The turns' full-text index is eventually consistent (schema.EVENTUALLY_CONSISTENT):
  // wait for the updates of committed appends first, so a search finds every turn.
  CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
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
RETURN kind, how, dimension, fetched, hits
