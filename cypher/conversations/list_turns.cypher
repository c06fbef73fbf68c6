// Every turn of a session, all branches, in the order they were created.
MATCH (t:Turn {tenant: $tenant, session: $session_id})
RETURN t {.id, .session, .role, .speaker, .content, .summary, .turn_id,
          created_at: toString(t.created_at),
          .trajectory_json, .artifacts_json, .hidden_artifacts_json,
          parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])} AS turn
ORDER BY t.created_at, t.seq
