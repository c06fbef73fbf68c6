// Read an entity for a read-modify-write, holding its write lock until the transaction
// ends (the locking idiom of the Neo4j manual: write first, then read), so concurrent
// update_entity calls on one entity serialise instead of losing each other's changes.
MATCH (e:Entity {tenant: $tenant, id: $id})
USING INDEX SEEK e:Entity(tenant, id)
SET e._lock = true
REMOVE e._lock
RETURN e {.id, .type, .name, .attributes_json,
          created_at: toString(e.created_at), updated_at: toString(e.updated_at)} AS entity
