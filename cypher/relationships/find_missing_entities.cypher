// Which of $ids are not entities of the tenant (to name them in an error).
UNWIND $ids AS entity_id
OPTIONAL MATCH (e:Entity {tenant: $tenant, id: entity_id})
USING INDEX SEEK e:Entity(tenant, id)
WITH entity_id, e
WHERE e IS NULL
RETURN collect(entity_id) AS missing
