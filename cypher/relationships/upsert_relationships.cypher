// Insert or replace relationships of one type keyed by (source, target), one row each.
// The type is written into the type slot (graphmem.backends.neo4j.queries.TYPE_SLOT)
// after the safe-name check: Neo4j 5.26.0 gives every relationship created with a dynamic
// type, CREATE (a)-[r:$(row.type)]->(b), the first type the server ever saw, so the
// caller runs this query once per type.
// $rows: [{index, source_id, target_id, created_at, valid_at, invalid_at, expired_at,
// props}], distinct keys, sorted by source_id (so concurrent batches lock their sources in
// one order); props holds every other stored property; the times are ISO 8601 text (the
// driver's DateTime conversion would cost more than the write), stored as DateTime. A row
// whose ends do not both exist writes nothing and is not counted: the caller sees
// `written` short of its rows, names the missing ids and rolls the transaction back.
//
// The plan does not depend on the store's statistics: both ends come from the
// (tenant, id) uniqueness constraint, the source is write-locked before the look-up
// (every writer of a relationship locks its source first, so two batches never both
// create it: what MERGE's own locking gave), and the existing relationship is found by
// expanding between the two bound ends (Expand(Into): from the end with fewer
// relationships of the type, so a hub NPC costs no more than its partner).
// A replaced relationship keeps its created_at (moved back to the new expired_at if that
// is earlier, so expired_at is never before created_at); every other property is replaced.
// Returns one row: how many rows were written, and the created_at (as text) of the rows
// where it is not the one sent (replaced relationships), by index.
UNWIND $rows AS row
MATCH (a:Entity {tenant: $tenant, id: row.source_id})
USING INDEX SEEK a:Entity(tenant, id)
MATCH (b:Entity {tenant: $tenant, id: row.target_id})
USING INDEX SEEK b:Entity(tenant, id)
SET a._lock = true
REMOVE a._lock
WITH a, b, row,
     head(COLLECT {
       MATCH (a)-[found:__TYPE__]->(b)
       RETURN found
       LIMIT 1
     }) AS existing
CALL (a, b, row, existing) {
  WITH a, b, row, existing
  WHERE existing IS NULL
  CREATE (a)-[r:__TYPE__]->(b)
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
