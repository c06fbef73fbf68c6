// Add the MENTIONS edges of a load, (chunk)-[:MENTIONS]->(entity), to what is there.
// $rows: [{node_id, entity_id}], distinct. Rows whose chunk or entity does not exist (in
// the store, or written earlier in the same transaction) come back as missing; the
// caller then fails the load, which rolls the whole transaction back.
UNWIND $rows AS row
OPTIONAL MATCH (n:Chunk {tenant: $tenant, id: row.node_id})
USING INDEX SEEK n:Chunk(tenant, id)
OPTIONAL MATCH (e:Entity {tenant: $tenant, id: row.entity_id})
USING INDEX SEEK e:Entity(tenant, id)
CALL (n, e) {
  WITH n, e
  WHERE n IS NOT NULL AND e IS NOT NULL
  MERGE (n)-[:MENTIONS]->(e)
}
WITH row, n, e
WHERE n IS NULL OR e IS NULL
RETURN row.node_id AS node_id, row.entity_id AS entity_id, n IS NULL AS missing_node
