// Breadth-first neighbours of one entity over current facts, start excluded, ordered by
// hop count then id, at most $max_nodes. One row when the entity exists, none when it
// does not (NotFound).
// The walk is a reduce over hops 1..$depth, so the depth is a parameter (variable-length
// bounds cannot be) and each hop expands only the previous frontier; a node is kept at
// the hop it was first reached. Once the frontier is empty the remaining hops do
// nothing; $depth is at most MAX_DEPTH (graphmem/checks.py, checked before the query
// runs). $rel_types restricts the edges walked; $node_types only filters what is
// returned (the walk passes through every type). $direction: out|in|both.
MATCH (start:Entity {tenant: $tenant, id: $entity_id})
USING INDEX SEEK start:Entity(tenant, id)
WITH start, reduce(
  state = {frontier: [start], seen: [start], found: []},
  hop IN range(1, $depth) |
  CASE WHEN size(state.frontier) = 0 THEN state ELSE reduce(
    level = {frontier: [], seen: state.seen, found: state.found},
    reached IN reduce(
      acc = [],
      f IN state.frontier |
      acc + [(f)-[r]-(m:Entity {tenant: $tenant})
             WHERE ($direction = 'both'
                    OR ($direction = 'out' AND startNode(r) = f)
                    OR ($direction = 'in' AND endNode(r) = f))
               AND ($rel_types IS NULL OR type(r) IN $rel_types)
               AND (r.valid_at IS NULL OR r.valid_at <= $now)
               AND (r.invalid_at IS NULL OR $now < r.invalid_at)
               AND (r.expired_at IS NULL OR $now < r.expired_at)
             | m]
    ) |
    CASE
      WHEN reached IN level.seen THEN level
      ELSE {
        frontier: level.frontier + [reached],
        seen: level.seen + [reached],
        found: level.found + [{node: reached, hop: hop}]
      }
    END
  ) END
) AS state
CALL (state) {
  UNWIND state.found AS item
  WITH item.node AS n, item.hop AS hop
  WHERE $node_types IS NULL OR n.type IN $node_types
  WITH n, hop
  ORDER BY hop, n.id
  LIMIT $max_nodes
  RETURN collect(n {.id, .type, .name, .attributes_json,
                    created_at: toString(n.created_at),
                    updated_at: toString(n.updated_at)}) AS entities
}
RETURN entities
