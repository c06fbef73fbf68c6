// Insert or replace relationships keyed by (source, target, type), one row each.
// $rows: [{index, source_id, target_id, type, created_at, valid_at, invalid_at, expired_at,
// props}], distinct keys, sorted by source_id (so concurrent batches lock their sources in
// one order); type has passed the safe-name check; props holds every other stored
// property; the times are ISO 8601 text (the driver's DateTime conversion would cost more
// than the write), stored as DateTime. A row whose ends do not both exist writes nothing and is not
// counted: the caller sees `written` short of its rows, names the missing ids and rolls
// the transaction back.
//
// The plan does not depend on the store's statistics. A MERGE (a)-[:$(row.type)]->(b)
// lets the planner answer the relationship from a scan of every relationship, which it
// picks when the statistics say the store is empty (after a clear: minutes for the first
// 5,000 rows, issue 16). Here both ends come from the (tenant, id) uniqueness constraint,
// the source is write-locked before the look-up (every writer of a relationship locks
// its source first, so two batches never both create it: what MERGE's own locking
// gave), and the existing relationship is looked up with a variable-length pattern of
// length one between the bound ends, which no scan operator can answer: only an
// expansion from a bound node, whose cost is the node's degree.
// A replaced relationship keeps its created_at (moved back to the new expired_at if that
// is earlier, so expired_at is never before created_at); every other property is replaced.
// Returns one row: how many rows were written, and the created_at (as text) of the rows
// where it is not the one sent (replaced relationships), by index.
UNWIND $rows AS row
MATCH (a:Entity {tenant: $tenant, id: row.source_id})
MATCH (b:Entity {tenant: $tenant, id: row.target_id})
SET a._lock = true
REMOVE a._lock
WITH a, b, row,
     head(COLLECT {
       MATCH (a)-[found*1..1]->(b)
       WHERE type(found[0]) = row.type
       RETURN found[0] AS existing
     }) AS existing
CALL (a, b, row, existing) {
  WITH a, b, row, existing
  WHERE existing IS NULL
  CREATE (a)-[r:$(row.type)]->(b)
  RETURN r
  UNION ALL
  WITH existing
  WHERE existing IS NOT NULL
  RETURN existing AS r
}
WITH r, row, datetime(row.created_at) AS sent, datetime(row.expired_at) AS expired_at
WITH r, row, sent, expired_at, coalesce(r.created_at, sent) AS kept
WITH r, row, sent, expired_at,
     CASE WHEN expired_at IS NOT NULL AND expired_at < kept THEN expired_at ELSE kept END
       AS created_at
SET r = row.props
SET r.tenant = $tenant,
    r.created_at = created_at,
    r.valid_at = datetime(row.valid_at),
    r.invalid_at = datetime(row.invalid_at),
    r.expired_at = expired_at
RETURN count(*) AS written,
       collect(CASE
                 WHEN created_at <> sent
                   THEN {index: row.index, created_at: toString(created_at)}
               END) AS changed
