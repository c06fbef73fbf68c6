// The entity ids each of $ids (distinct chunk ids) mentions, sorted; chunks without any
// mention give no row.
UNWIND $ids AS node_id
MATCH (key_c:Chunk {tenant: $tenant, id: node_id})-[:MENTIONS]->(e:Entity {tenant: $tenant})
USING INDEX SEEK key_c:Chunk(tenant, id)
WITH node_id, e.id AS entity_id
ORDER BY node_id, entity_id
RETURN node_id, collect(entity_id) AS entity_ids
