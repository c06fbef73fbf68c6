// Approximate nearest turns of $vector from the shared vector index $index, kept to
// the tenant and the scope (only turns that mention an entity named in $scope, when it is not null).
// The index holds every tenant's turns, so it is asked for $fetch >= $k neighbours
// and the filter runs on those; `fetched` (how many the index gave) tells the caller
// whether a larger $fetch could find more (see Neo4jStore.vector_search).
// Scores: the procedure's cosine similarity is "a value between [0, 1]" (its own
// description), i.e. (1 + cos) / 2; the caller converts it back to cos.
// Hits are ordered by score, then id (ties are otherwise in index order).
// `dimension` is the tenant's stored dimension for turns (null: no vector yet).
WITH head(COLLECT {
       MATCH (n:Turn {tenant: $tenant})
       WHERE n.embedding_dim IS NOT NULL
       RETURN n.embedding_dim
       LIMIT 1
     }) AS dimension
CALL () {
  CALL db.index.vector.queryNodes($index, $fetch, $vector) YIELD node, score
  RETURN count(*) AS fetched,
         collect(CASE
                   WHEN node.tenant = $tenant
                        AND ($scope IS NULL
                 OR EXISTS { MATCH (node)-[:MENTIONS]->(e:Entity {tenant: $tenant}) WHERE e.id IN $scope })
                   THEN {id: node.id, score: score}
                 END) AS kept
}
CALL (kept) {
  UNWIND kept AS hit
  WITH hit
  ORDER BY hit.score DESC, hit.id
  LIMIT $k
  RETURN collect(hit) AS hits
}
RETURN dimension, fetched, hits
