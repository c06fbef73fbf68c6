// Every turn of every conversation of the tenant, in the order they were created.
MATCH (t:Turn {tenant: $tenant})
RETURN t {.id, .session, .role, .speaker, .content, .summary, .turn_id, .created_at,
          parent_id: head([(t)-[:PARENT]->(p:Turn) | p.id])} AS turn
ORDER BY t.created_at, t.session, t.seq
