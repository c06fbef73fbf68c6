// The entities that exist among $ids (the caller restores the order asked).
UNWIND $ids AS entity_id
MATCH (e:Entity {tenant: $tenant, id: entity_id})
USING INDEX SEEK e:Entity(tenant, id)
RETURN e {.id, .type, .name, .attributes_json,
          created_at: toString(e.created_at), updated_at: toString(e.updated_at)} AS entity
