// Mark a fact as no longer holding from $at and no longer believed from $now (never
// before it was learned). The edge stays, so as_of reads before $at still find it.
MATCH (a:Entity {tenant: $tenant, id: $source_id})-[r]->(b:Entity {tenant: $tenant, id: $target_id})
WHERE type(r) = $type
SET r.invalid_at = $at,
    r.expired_at = CASE WHEN $now < r.created_at THEN r.created_at ELSE $now END
RETURN r {.*, source_id: a.id, target_id: b.id, type: type(r)} AS rel
