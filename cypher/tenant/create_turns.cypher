// Create loaded turns, grouped by session, in one batch: each session's conversation is
// created if new and write-locked, and its turns are numbered after the ones it holds.
// $sessions: [{session_id, turns: [props]}], each turn's created_at as ISO 8601 text
// (stored as DateTime). PARENT and HEAD links come next.
UNWIND $sessions AS s
MERGE (c:Conversation {tenant: $tenant, id: s.session_id})
  ON CREATE SET c.session = s.session_id, c.seq = 0
SET c._lock = true
WITH c, s, coalesce(c.seq, 0) AS base
SET c.seq = base + size(s.turns)
REMOVE c._lock
WITH s, base
UNWIND range(0, size(s.turns) - 1) AS i
CREATE (t:Turn)
SET t = s.turns[i],
    t.tenant = $tenant,
    t.created_at = datetime(s.turns[i].created_at),
    t.seq = base + i + 1
RETURN count(t) AS created
