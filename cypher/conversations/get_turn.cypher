// One turn by id, with its parent's id.
MATCH (t:Turn {tenant: $tenant, id: $turn_id})
USING INDEX SEEK t:Turn(tenant, id)
RETURN t {.id, .session, .role, .speaker, .content, .summary, .turn_id,
          created_at: toString(t.created_at),
          .trajectory_json, .artifacts_json, .hidden_artifacts_json,
          parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])} AS turn
