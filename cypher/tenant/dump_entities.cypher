// Every entity of the tenant, by id.
MATCH (e:Entity {tenant: $tenant})
RETURN e {.id, .type, .name, .attributes_json, .created_at, .updated_at} AS entity
ORDER BY e.id
