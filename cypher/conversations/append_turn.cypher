// Append a turn after the head of its session's conversation and make it the head, in
// one query. The conversation node is write-locked first (created if new; the
// (tenant, id) uniqueness constraint makes concurrent creation safe): incrementing its
// seq is that lock, since Cypher takes the write lock before it reads a property that
// the same SET writes (a "direct dependency"), and HEAD is read only after it, so
// concurrent appends to one conversation serialise into one chain. created_at is bumped
// to strictly after the parent's; seq numbers the turns of the conversation in the
// order they were appended (get_branch orders a branch by it). past_last_time: the bump
// went past 9999-12-31T23:59:59.999999Z, which Python cannot hold (the caller rolls back).
// $props: the turn's stored properties (id, session, role, content, ...); $created_at: its
// time as ISO 8601 text (stored as DateTime; returned as text, like the one-row queries
// on the hot paths: the driver's DateTime conversion costs more than the query).
MERGE (c:Conversation {tenant: $tenant, id: $session_id})
  ON CREATE SET c.session = $session_id, c.seq = 0
SET c.seq = coalesce(c.seq, 0) + 1
WITH c
OPTIONAL MATCH (c)-[h:HEAD]->(prev:Turn)
WITH c, h, prev,
     CASE
       WHEN prev IS NOT NULL AND datetime($created_at) <= prev.created_at
         THEN prev.created_at + duration({microseconds: 1})
       ELSE datetime($created_at)
     END AS created_at
CREATE (t:Turn)
SET t = $props, t.tenant = $tenant, t.created_at = created_at, t.seq = c.seq
DELETE h
FOREACH (parent IN CASE WHEN prev IS NULL THEN [] ELSE [prev] END |
  CREATE (t)-[:PARENT]->(parent))
CREATE (c)-[:HEAD]->(t)
RETURN toString(t.created_at) AS created_at, prev.id AS parent_id,
       t.created_at.year > 9999 AS past_last_time
