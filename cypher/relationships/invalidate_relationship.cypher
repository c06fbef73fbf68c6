// Mark a fact as no longer holding and no longer believed, as the contract says:
// invalid_at becomes $at when given; without it ($at null) a fact that already has an
// invalid_at keeps it, and one without gets $now (never before its valid_at).
// expired_at is set once: invalidating again keeps the first one; it is $now, never
// before the fact was learned. The edge stays, so as_of reads before invalid_at find it.
// An $at at or before the fact's start (valid_at, else created_at) would leave it an
// empty interval: nothing is set and `empty` tells the caller to refuse it.
MATCH (a:Entity {tenant: $tenant, id: $source_id})-[r]->(b:Entity {tenant: $tenant, id: $target_id})
WHERE type(r) = $type
WITH a, b, r, ($at IS NOT NULL AND $at <= coalesce(r.valid_at, r.created_at)) AS empty
FOREACH (_ IN CASE WHEN empty THEN [] ELSE [1] END |
  SET r.invalid_at = CASE
        WHEN $at IS NOT NULL THEN $at
        WHEN r.invalid_at IS NOT NULL THEN r.invalid_at
        WHEN r.valid_at IS NOT NULL AND $now < r.valid_at THEN r.valid_at
        ELSE $now
      END,
      r.expired_at = CASE
        WHEN r.expired_at IS NOT NULL THEN r.expired_at
        WHEN $now < r.created_at THEN r.created_at
        ELSE $now
      END)
RETURN r {.attributes_json, .session_id, .confidence, .source, .confirmed, .evidence,
          valid_at: toString(r.valid_at), invalid_at: toString(r.invalid_at),
          created_at: toString(r.created_at), expired_at: toString(r.expired_at),
          source_id: a.id, target_id: b.id, type: type(r)} AS rel, empty
