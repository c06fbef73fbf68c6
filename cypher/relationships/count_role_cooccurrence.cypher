// For every two roles some entity of the tenant has both of, how many entities have both.
// A role is a relationship type and a direction: 'out' (the entity is the source of such
// a current fact) or 'in' (its target). Pairs are ordered (type, direction) a <= b; a role
// paired with itself counts the entities that have it. "Current" as in every traversal:
// valid at $now, not invalidated, not expired. Out and in are read by two directed
// patterns, so a fact from an entity to itself gives it both roles.
MATCH (n:Entity {tenant: $tenant})
CALL (n) {
  OPTIONAL MATCH (n)-[r]->(:Entity {tenant: $tenant})
  WHERE (r.valid_at IS NULL OR r.valid_at <= $now)
    AND (r.invalid_at IS NULL OR $now < r.invalid_at)
    AND (r.expired_at IS NULL OR $now < r.expired_at)
  RETURN collect(DISTINCT type(r)) AS outs
}
CALL (n) {
  OPTIONAL MATCH (n)<-[r]-(:Entity {tenant: $tenant})
  WHERE (r.valid_at IS NULL OR r.valid_at <= $now)
    AND (r.invalid_at IS NULL OR $now < r.invalid_at)
    AND (r.expired_at IS NULL OR $now < r.expired_at)
  RETURN collect(DISTINCT type(r)) AS ins
}
WITH [t IN outs | {type: t, direction: 'out'}] + [t IN ins | {type: t, direction: 'in'}]
  AS roles
WHERE size(roles) > 0
UNWIND roles AS a
UNWIND roles AS b
WITH a, b
WHERE a.type < b.type OR (a.type = b.type AND a.direction <= b.direction)
RETURN a.type AS type_a, a.direction AS direction_a, b.type AS type_b,
       b.direction AS direction_b, count(*) AS entities
ORDER BY type_a, direction_a, type_b, direction_b
