// Insert or replace relationships of one type keyed by (source, target), one row each.
// The type is written into the type slot (graphmem.backends.neo4j.queries.TYPE_SLOT)
// after the safe-name check: Neo4j 5.26.0 gives every relationship created with a dynamic
// type, CREATE (a)-[r:$(row.type)]->(b), the first type the server ever saw, so the
// caller runs this query once per type.
// The rows come as columns, one list per property, row i at position i of each ($index:
// the row's position in the caller's batch): a map per row would repeat its keys, which
// the client packs and the server decodes row by row. Keys are distinct, rows sorted by
// source_id (so concurrent batches lock their sources in one order). A column where every
// row is null comes as null. A property at its empty default (no attributes_json,
// evidence, session_id; confirmed not true) is null, so not stored (read back as the
// default); a relationship carries no tenant (its ends do); the times are ISO 8601 text
// (the driver's DateTime conversion would cost more than the write), stored as DateTime.
// All or nothing: when an end of any row is not an entity of the tenant, nothing is
// written and `missing` names those ids (so a batch of one type is one statement, with
// no transaction to roll back).
//
// The plan does not depend on the store's statistics: both ends come from the
// (tenant, id) uniqueness constraint (USING INDEX SEEK: on an empty store's statistics
// the planner preferred scans), and MERGE finds the relationship by expanding between
// the two bound ends (Expand(Into), from the end with fewer relationships of the type,
// so a hub NPC costs no more than its partner) under a lock of both ends (LockingMerge:
// two batches never both create it).
// A replaced relationship keeps its created_at (moved back to the new expired_at if that
// is earlier, so expired_at is never before created_at); every other property is replaced.
// Returns one row: how many rows were written, and the created_at (as text) of the rows
// where it is not the one sent (replaced relationships), by $index.
UNWIND range(0, size($source_ids) - 1) AS i
OPTIONAL MATCH (a:Entity {tenant: $tenant, id: $source_ids[i]})
USING INDEX SEEK a:Entity(tenant, id)
OPTIONAL MATCH (b:Entity {tenant: $tenant, id: $target_ids[i]})
USING INDEX SEEK b:Entity(tenant, id)
WITH collect({i: i, a: a, b: b}) AS found
WITH found,
     [f IN found WHERE f.a IS NULL | $source_ids[f.i]]
       + [f IN found WHERE f.b IS NULL | $target_ids[f.i]] AS missing
CALL (found, missing) {
  WITH found
  WHERE size(missing) = 0
  UNWIND found AS f
  WITH f.a AS a, f.b AS b, f.i AS i
  WITH a, b, i, datetime($created_at[i]) AS sent, datetime($expired_at[i]) AS expired_at
  MERGE (a)-[r:__TYPE__]->(b)
  WITH r, i, sent, expired_at, coalesce(r.created_at, sent) AS kept
  WITH r, i, sent, expired_at,
       CASE WHEN expired_at IS NOT NULL AND expired_at < kept THEN expired_at ELSE kept END
         AS created_at
  SET r = {confidence: $confidence[i],
           source: $source[i],
           confirmed: $confirmed[i],
           session_id: $session_id[i],
           evidence: $evidence[i],
           attributes_json: $attributes_json[i],
           created_at: created_at,
           valid_at: datetime($valid_at[i]),
           invalid_at: datetime($invalid_at[i]),
           expired_at: expired_at}
  RETURN count(*) AS written,
         collect(CASE
                   WHEN created_at <> sent
                     THEN {index: $index[i], created_at: toString(created_at)}
                 END) AS changed
}
RETURN written, changed, missing
