// The active branch of a session: the head and its ancestors along PARENT, newest first,
// the newest $limit of them. One row always; [] before the first turn.
// Linear in the branch length: the ancestors are reached by one breadth-first walk that
// keeps each turn once (DISTINCT over the end nodes of a PARENT*0.. walk, with no path
// bound, lets the planner prune to a BFS), instead of enumerating every path from the
// head, each one a list as long as it is deep (quadratic: a 10,000-turn branch ran for
// minutes, issue 16). The walk gives no order; seq does: every turn is numbered after
// its parent (append numbers turns in order, a load numbers a dump's turns parents first,
// deleting a turn re-links its children to an older turn), so newest first is seq
// descending. Times are returned as text: the driver's DateTime conversion would cost more
// than the walk (about 60 microseconds a value). Each turn's parent is the next turn of
// the list (the branch is one chain), so only the oldest one's parent is looked up
// (`beyond`, null at the root): an expansion per turn cost a third of the query. Each
// turn is a list of its values in the order of mapping.TURN_COLUMNS, not a map: a map
// sends its eleven keys again for every turn (a third of a 10,000-turn read). The values
// are read from properties(t), one pass over the node's properties, instead of eleven
// lookups of a property each (13% of the server's time for 10,000 turns).
OPTIONAL MATCH (c:Conversation {tenant: $tenant, id: $session_id})-[:HEAD]->(head:Turn)
USING INDEX SEEK c:Conversation(tenant, id)
CALL (head) {
  MATCH (head)-[:PARENT*0..]->(t)
  WITH DISTINCT t
  ORDER BY t.seq DESC
  LIMIT $limit
  WITH t, properties(t) AS p
  RETURN collect([p.id, p.session, p.role, p.speaker, p.content, p.summary, p.turn_id,
                  toString(p.created_at),
                  p.trajectory_json, p.artifacts_json, p.hidden_artifacts_json]) AS turns,
         collect(t)[-1] AS oldest
}
RETURN turns, head([(oldest)-[:PARENT]->(p:Turn) | p.id]) AS beyond
