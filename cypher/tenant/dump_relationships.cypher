// Every relationship between the tenant's entities, invalidated ones included.
MATCH (a:Entity {tenant: $tenant})-[r]->(b:Entity {tenant: $tenant})
RETURN r {.*, source_id: a.id, target_id: b.id, type: type(r)} AS rel
ORDER BY a.id, b.id, type(r)
