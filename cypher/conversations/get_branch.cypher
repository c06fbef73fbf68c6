// The active branch of a session: the head and its ancestors along PARENT, newest first,
// the newest $limit of them. Each turn carries its parent's id. One row always; [] before
// the first turn.
// Linear in the branch length: the ancestors are reached by one breadth-first walk that
// keeps each turn once (DISTINCT over the end nodes of a PARENT*0.. walk, with no path
// bound, lets the planner prune to a BFS), instead of enumerating every path from the
// head, each one a list as long as it is deep (quadratic: a 10,000-turn branch ran for
// minutes, issue 16). The walk gives no order; seq does: every turn is numbered after
// its parent (append numbers turns in order, a load numbers a dump's turns parents first,
// deleting a turn re-links its children to an older turn), so newest first is seq
// descending. Times are returned as text: the driver's DateTime conversion would cost more
// than the walk (about 60 microseconds a value).
OPTIONAL MATCH (:Conversation {tenant: $tenant, id: $session_id})-[:HEAD]->(head:Turn)
CALL (head) {
  MATCH (head)-[:PARENT*0..]->(t)
  WITH DISTINCT t
  ORDER BY t.seq DESC
  LIMIT $limit
  RETURN collect(t {.id, .session, .role, .speaker, .content, .summary, .turn_id,
                    created_at: toString(t.created_at),
                    .trajectory_json, .artifacts_json, .hidden_artifacts_json,
                    parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])}) AS turns
}
RETURN turns
