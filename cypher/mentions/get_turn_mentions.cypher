// The entity ids each of $ids (distinct turn ids) mentions, sorted; turns without any
// mention give no row.
UNWIND $ids AS node_id
MATCH (key_t:Turn {tenant: $tenant, id: node_id})-[:MENTIONS]->(e:Entity {tenant: $tenant})
USING INDEX SEEK key_t:Turn(tenant, id)
WITH node_id, e.id AS entity_id
ORDER BY node_id, entity_id
RETURN node_id, collect(entity_id) AS entity_ids
