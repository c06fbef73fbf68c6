// Append one turn after the head of its session's conversation and make it the head, in
// one statement (append_turn; conversations/append_turns appends a chain). The same rules
// as append_turns, written for one turn: a third less work on the server than the chain
// query (no list of times, no per-turn loop, fewer Eager operators).
// The conversation node is write-locked first (created if new; the (tenant, id)
// uniqueness constraint makes concurrent creation safe): incrementing its seq is that
// lock, and HEAD is read only after it, so concurrent appends serialise into one chain.
// created_at is bumped to strictly after the head's; seq numbers the turn (get_branch
// orders a branch by it). A bump past 9999-12-31T23:59:59.999999Z, which Python cannot
// hold, writes no turn and returns no row (the caller reports it; the seq number spent
// is harmless).
// $props: the turn's stored properties (id, session, role, content, ...); $created_at its
// time as ISO 8601 text (stored as DateTime, returned as text). A turn id that is taken
// breaks the (tenant, id) uniqueness constraint: the statement fails and writes nothing.
MERGE (c:Conversation {tenant: $tenant, id: $session_id})
  ON CREATE SET c.session = $session_id, c.seq = 0
SET c.seq = coalesce(c.seq, 0) + 1
WITH c
OPTIONAL MATCH (c)-[h:HEAD]->(prev:Turn)
WITH c, h, prev, datetime($created_at) AS sent
WITH c, h, prev,
     CASE
       WHEN prev IS NOT NULL AND sent <= prev.created_at
         THEN prev.created_at + duration({microseconds: 1})
       ELSE sent
     END AS at
WHERE at.year <= 9999
CREATE (t:Turn)
SET t = $props, t.tenant = $tenant, t.created_at = at, t.seq = c.seq
DELETE h
CREATE (c)-[:HEAD]->(t)
FOREACH (parent IN CASE WHEN prev IS NULL THEN [] ELSE [prev] END |
  CREATE (t)-[:PARENT]->(parent))
RETURN [toString(at)] AS created, prev.id AS parent_id, false AS past_last_time
