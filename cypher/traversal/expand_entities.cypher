// The seeds and every entity within $depth hops of any of them, walked breadth-first over
// current facts in one query, with the current facts among them.
// $seeds: distinct seed ids (the caller checks the returned seeds for missing ones:
// NotFound);
// $rel_types: null or the types walked; $direction: out|in|both; $within: null or the ids
// the walk may pass through and reach (seeds need not be in it); $max_nodes: the cap on
// all entities, seeds included; $limit = max(0, $max_nodes - number of seeds).
// Each hop expands the previous hop's new nodes only. A COLLECT subquery finds them, with
// DISTINCT (hashed) for the duplicates within the hop; the test against nodes seen in
// earlier hops is a list lookup, O(seen) per candidate, and the walk stops expanding once
// $max_nodes entities are seen (nodes of later hops could not be returned anyway), so
// the work stays bounded by the cap. Variable-length bounds cannot be parameters, hence
// the reduce over range(1, $depth) (depth 0: no hop).
// The relationships among the members test membership in a list too (O(members) per
// fact), again bounded by $max_nodes. Reached nodes come back with their hop; taking them by (hop, id) up to $limit gives exactly
// the embedded backend's hop-by-hop truncation.
MATCH (s:Entity {tenant: $tenant})
USING INDEX SEEK s:Entity(tenant, id)
WHERE s.id IN $seeds
WITH collect(s) AS seeds
WITH seeds, reduce(
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
CALL (state) {
  UNWIND state.found AS item
  WITH item.node AS n, item.hop AS hop
  ORDER BY hop, n.id
  LIMIT $limit
  RETURN collect(n) AS reached_nodes,
         collect(n {.id, .type, .name, .attributes_json,
                    created_at: toString(n.created_at),
                    updated_at: toString(n.updated_at), hop: hop})
           AS reached
}
WITH seeds, reached, seeds + reached_nodes AS members
RETURN [n IN seeds | n {.id, .type, .name, .attributes_json,
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
               source_id: n.id, target_id: m.id, type: type(r)}]] AS rels
