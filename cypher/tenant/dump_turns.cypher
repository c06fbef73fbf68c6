// Every turn of every conversation of the tenant: session by session (by session id), each
// session's turns in the order they were created, as on the embedded backend.
MATCH (t:Turn {tenant: $tenant})
RETURN t {.id, .session, .role, .speaker, .content, .summary, .turn_id,
          created_at: toString(t.created_at),
          .trajectory_json, .artifacts_json, .hidden_artifacts_json,
          parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])} AS turn
ORDER BY t.session, t.created_at, t.seq
