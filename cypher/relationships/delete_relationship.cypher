// Delete one relationship; count whether it existed. $type has passed the safe-name check
// and is compared, not spliced, so the (tenant, id) indexes find both ends.
MATCH (a:Entity {tenant: $tenant, id: $source_id})-[r]->(b:Entity {tenant: $tenant, id: $target_id})
WHERE type(r) = $type
DELETE r
RETURN count(*) AS deleted
