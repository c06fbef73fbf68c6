// Move the head of $session_id to turn $turn_id, in one query. One row always: the turn
// (null if unknown: NotFound) and its session; the head moves only when that session
// is $session_id (otherwise the caller raises InvalidInput and nothing changed).
OPTIONAL MATCH (t:Turn {tenant: $tenant, id: $turn_id})
USING INDEX SEEK t:Turn(tenant, id)
OPTIONAL MATCH (c:Conversation {tenant: $tenant, id: $session_id})
USING INDEX SEEK c:Conversation(tenant, id)
  WHERE t.session = $session_id
SET c._lock = true
WITH t, c
OPTIONAL MATCH (c)-[h:HEAD]->(:Turn)
DELETE h
WITH DISTINCT t, c
FOREACH (conversation IN CASE WHEN c IS NULL THEN [] ELSE [c] END |
  CREATE (conversation)-[:HEAD]->(t)
  REMOVE conversation._lock)
RETURN t {.id, .session, .role, .speaker, .content, .summary, .turn_id,
          created_at: toString(t.created_at),
          .trajectory_json, .artifacts_json, .hidden_artifacts_json,
          parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])} AS turn,
       c IS NOT NULL AS moved
