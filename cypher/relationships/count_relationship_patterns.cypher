// Each (source entity type, relationship type, target entity type) of the tenant's current
// facts, with how many facts have it: the vocabulary graph question answering walks.
// "Current" as in every traversal: valid at $now, not invalidated, not expired.
MATCH (a:Entity {tenant: $tenant})-[r]->(b:Entity {tenant: $tenant})
WHERE (r.valid_at IS NULL OR r.valid_at <= $now)
  AND (r.invalid_at IS NULL OR $now < r.invalid_at)
  AND (r.expired_at IS NULL OR $now < r.expired_at)
RETURN a.type AS source_type, type(r) AS type, b.type AS target_type, count(r) AS facts
ORDER BY type, source_type, target_type
