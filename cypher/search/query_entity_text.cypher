// The entitys whose search_text best matches the Lucene query $query (already escaped:
// graphmem.backends.neo4j.fulltext), from the shared full-text index $index, kept to the
// tenant and the scope (only the entities named in $scope, when it is not null).
// The index holds every tenant's entitys, so it is asked for its best $fetch (the
// procedure's `limit` option) and the filter runs on those; `fetched` tells the caller
// whether a larger $fetch could find more. Scores are Lucene's (higher is better);
// hits are ordered by score, then id.
// The index is eventually consistent (schema.EVENTUALLY_CONSISTENT): the updates of
// committed writes are waited for first, so a search finds every node written.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL () {
  CALL db.index.fulltext.queryNodes($index, $query, {limit: $fetch}) YIELD node, score
  RETURN count(*) AS fetched,
         collect(CASE
                   WHEN node.tenant = $tenant
                        AND ($scope IS NULL OR node.id IN $scope)
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
RETURN fetched, hits
