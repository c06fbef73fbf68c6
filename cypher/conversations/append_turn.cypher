// Append a turn after the head of its session's conversation and make it the head, in
// one query. The conversation node is write-locked first (created if new; the
// (tenant, id) uniqueness constraint makes concurrent creation safe), and HEAD and seq
// are read only after that, so concurrent appends to one conversation serialise into one
// chain. created_at is bumped to strictly after the parent's; seq numbers the turns of
// the conversation in the order they were appended.
// $props: the turn's stored properties (id, session, role, content, ... created_at).
MERGE (c:Conversation {tenant: $tenant, id: $session_id})
  ON CREATE SET c.session = $session_id, c.seq = 0
SET c._lock = true
WITH c
OPTIONAL MATCH (c)-[h:HEAD]->(prev:Turn)
WITH c, h, prev,
     coalesce(c.seq, 0) + 1 AS seq,
     CASE
       WHEN prev IS NOT NULL AND $props.created_at <= prev.created_at
         THEN prev.created_at + duration({microseconds: 1})
       ELSE $props.created_at
     END AS created_at
CREATE (t:Turn)
SET t = $props, t.tenant = $tenant, t.created_at = created_at, t.seq = seq
SET c.seq = seq
REMOVE c._lock
DELETE h
FOREACH (parent IN CASE WHEN prev IS NULL THEN [] ELSE [prev] END |
  CREATE (t)-[:PARENT]->(parent))
CREATE (c)-[:HEAD]->(t)
RETURN t.created_at AS created_at, prev.id AS parent_id
