// The session log: turns across sessions matching every given condition, newest first
// (ties in created_at by id, descending, as on the embedded backend).
// Null parameters are no condition. $keywords: lower-cased words that must all occur in
// the content, case-insensitively. $limit is always given.
MATCH (t:Turn {tenant: $tenant})
WHERE ($session_id IS NULL OR t.session = $session_id)
  AND ($speaker IS NULL OR t.speaker = $speaker)
  AND ($role IS NULL OR t.role = $role)
  AND ($since IS NULL OR t.created_at >= $since)
  AND ($until IS NULL OR t.created_at < $until)
  AND all(word IN $keywords WHERE toLower(t.content) CONTAINS word)
RETURN t {.id, .session, .role, .speaker, .content, .summary, .turn_id,
          created_at: toString(t.created_at),
          .trajectory_json, .artifacts_json, .hidden_artifacts_json,
          parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])} AS turn
ORDER BY t.created_at DESC, t.id DESC
LIMIT $limit
