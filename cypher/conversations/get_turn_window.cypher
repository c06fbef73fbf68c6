// The turns of $ids and every turn within $depth PARENT edges of one of them: ancestors
// up to $depth steps back, descendants up to $depth steps forward on every branch (not
// siblings). Paths are bounded by 8 (graphmem.store.MAX_TURN_WINDOW; $depth is checked
// against it before the query runs), then cut to $depth. Each turn once, with its
// parent's id, ordered by (created_at, id).
UNWIND $ids AS turn_id
MATCH (t:Turn {tenant: $tenant, id: turn_id})
USING INDEX SEEK t:Turn(tenant, id)
WITH t,
     [up = (t)-[:PARENT*1..8]->(a:Turn) WHERE length(up) <= $depth | a] AS before,
     [down = (d:Turn)-[:PARENT*1..8]->(t) WHERE length(down) <= $depth | d] AS after
UNWIND [t] + before + after AS n
WITH DISTINCT n
RETURN n {.id, .session, .role, .speaker, .content, .summary, .turn_id, .created_at,
          parent_id: head([(n)-[:PARENT]->(p:Turn) | p.id])} AS turn
ORDER BY turn.created_at, turn.id
