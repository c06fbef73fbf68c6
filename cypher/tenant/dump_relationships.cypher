// Every relationship between the tenant's entities, invalidated ones included.
MATCH (a:Entity {tenant: $tenant})-[r]->(b:Entity {tenant: $tenant})
RETURN r {.attributes_json, .session_id, .confidence, .source, .confirmed, .evidence,
          valid_at: toString(r.valid_at), invalid_at: toString(r.invalid_at),
          created_at: toString(r.created_at), expired_at: toString(r.expired_at),
          source_id: a.id, target_id: b.id, type: type(r)} AS rel
ORDER BY a.id, b.id, type(r)
