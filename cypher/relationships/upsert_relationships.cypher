// Insert or replace relationships keyed by (source, target, type), one row each.
// $rows: [{index, source_id, target_id, type, created_at, props}]; type has passed the
// safe-name check. A row whose ends do not both exist returns nothing: the caller sees
// the missing index, names the missing ids and rolls the transaction back.
// A replaced relationship keeps its created_at (moved back to the new expired_at if that
// is earlier, so expired_at is never before created_at); every other property is replaced.
UNWIND $rows AS row
MATCH (a:Entity {tenant: $tenant, id: row.source_id})
MATCH (b:Entity {tenant: $tenant, id: row.target_id})
MERGE (a)-[r:$(row.type)]->(b)
  ON CREATE SET r.created_at = row.created_at
WITH r, row,
     CASE
       WHEN row.props.expired_at IS NOT NULL AND row.props.expired_at < r.created_at
         THEN row.props.expired_at
       ELSE r.created_at
     END AS created_at
SET r = row.props
SET r.tenant = $tenant, r.created_at = created_at
RETURN row.index AS index, created_at
