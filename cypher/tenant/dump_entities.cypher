// Every entity of the tenant, by id.
MATCH (e:Entity {tenant: $tenant})
RETURN e {.id, .type, .name, .attributes_json,
          created_at: toString(e.created_at), updated_at: toString(e.updated_at)} AS entity
ORDER BY e.id
