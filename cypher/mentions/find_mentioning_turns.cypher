// For each of $entity_ids (distinct), the ids of the turns that mention it, sorted, the
// first $limit of them. Entities mentioned by no turn (or unknown) give no row.
UNWIND $entity_ids AS entity_id
MATCH (key_e:Entity {tenant: $tenant, id: entity_id})<-[:MENTIONS]-(n:Turn {tenant: $tenant})
USING INDEX SEEK key_e:Entity(tenant, id)
WITH entity_id, n.id AS node_id
ORDER BY entity_id, node_id
WITH entity_id, collect(node_id) AS node_ids
RETURN entity_id, node_ids[..$limit] AS node_ids
