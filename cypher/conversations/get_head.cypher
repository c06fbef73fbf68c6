// The head turn of a session's conversation (no row before the first turn).
MATCH (:Conversation {tenant: $tenant, id: $session_id})-[:HEAD]->(t:Turn)
RETURN t {.id, .session, .role, .speaker, .content, .summary, .turn_id,
          created_at: toString(t.created_at),
          .trajectory_json, .artifacts_json, .hidden_artifacts_json,
          parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])} AS turn
