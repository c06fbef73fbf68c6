// Append a chain of turns after the head of their session's conversation and make the
// last one the head, in one statement (append_turn: a chain of one; append_turns). The
// conversation node is write-locked first (created if new; the (tenant, id) uniqueness
// constraint makes concurrent creation safe): incrementing its seq is that lock, since
// Cypher takes the write lock before it reads a property that the same SET writes (a
// "direct dependency"), and HEAD is read only after it, so concurrent appends and batches
// to one conversation serialise into one chain: the head is read and moved in the same
// transaction, never from a head another writer has moved since.
// created_at is bumped to strictly after the parent's (the head's for the first turn, the
// turn before it for the others); seq numbers the turns of the conversation in the order
// they were appended (get_branch orders a branch by it). A bump past
// 9999-12-31T23:59:59.999999Z, which Python cannot hold, writes no turn and returns
// past_last_time (the caller reports it; the seq number spent is harmless).
// $rows: [{props, created_at}], props = the turn's stored properties (id, session, role,
// content, ...), created_at its time as ISO 8601 text (stored as DateTime; returned as
// text, like the other one-row queries on the hot paths: the driver's DateTime
// conversion costs more than the query). A turn id that is taken breaks the (tenant, id)
// uniqueness constraint: the statement fails and writes nothing.
MERGE (c:Conversation {tenant: $tenant, id: $session_id})
  ON CREATE SET c.session = $session_id, c.seq = 0
SET c.seq = coalesce(c.seq, 0) + size($rows)
WITH c, c.seq - size($rows) AS base
OPTIONAL MATCH (c)-[h:HEAD]->(prev:Turn)
WITH c, h, prev, base,
     reduce(times = [], row IN $rows |
       times + [CASE
         WHEN size(times) = 0 AND prev IS NOT NULL
              AND datetime(row.created_at) <= prev.created_at
           THEN prev.created_at + duration({microseconds: 1})
         WHEN size(times) > 0 AND datetime(row.created_at) <= times[-1]
           THEN times[-1] + duration({microseconds: 1})
         ELSE datetime(row.created_at)
       END]) AS times
WITH c, h, prev, base, times, any(t IN times WHERE t.year > 9999) AS past_last_time
CALL (base, times, past_last_time) {
  UNWIND CASE WHEN past_last_time THEN [] ELSE range(0, size($rows) - 1) END AS i
  CREATE (t:Turn)
  SET t = $rows[i].props, t.tenant = $tenant, t.created_at = times[i], t.seq = base + i + 1
  WITH t, i
  ORDER BY i
  RETURN collect(t) AS chain
}
// No FOREACH body runs for an empty chain (the last time was passed): nothing is linked.
FOREACH (_ IN chain[..1] | DELETE h)
FOREACH (first IN chain[..1] |
  FOREACH (parent IN CASE WHEN prev IS NULL THEN [] ELSE [prev] END |
    CREATE (first)-[:PARENT]->(parent)))
FOREACH (i IN range(1, size(chain) - 1) |
  FOREACH (child IN [chain[i]] |
    FOREACH (parent IN [chain[i - 1]] | CREATE (child)-[:PARENT]->(parent))))
FOREACH (last IN chain[-1..] | CREATE (c)-[:HEAD]->(last))
RETURN [t IN chain | toString(t.created_at)] AS created, prev.id AS parent_id, past_last_time
