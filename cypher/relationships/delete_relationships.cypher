// Delete relationships by key, in one batch; count how many existed.
// $keys: [{source_id, target_id, type}], each type has passed the safe-name check and is
// compared, not spliced, so the (tenant, id) indexes find both ends. A missing key is fine.
UNWIND $keys AS key
MATCH (a:Entity {tenant: $tenant, id: key.source_id})-[r]->(b:Entity {tenant: $tenant, id: key.target_id})
USING INDEX SEEK a:Entity(tenant, id)
WHERE type(r) = key.type
DELETE r
RETURN count(*) AS deleted
