// Delete entities and every relationship they have; count how many existed.
UNWIND $ids AS entity_id
MATCH (e:Entity {tenant: $tenant, id: entity_id})
USING INDEX SEEK e:Entity(tenant, id)
DETACH DELETE e
RETURN count(*) AS deleted
