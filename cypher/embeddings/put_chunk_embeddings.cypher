// Store one embedding per chunk (replacing any earlier one), in one query: or, when a
// chunk is unknown or the tenant's chunks already hold vectors of another dimension,
// write nothing and say why.
// $rows: [{id, vector}] with distinct ids; every vector is unit length, of $dimension.
// The vector is written with db.create.setNodeVectorProperty (stored as float32, "a more
// space efficient representation than Cypher's SET", per its description); the vector
// index on Chunk.embedding picks it up when $dimension is the index's. embedding_dim
// serves the per-(tenant, kind) dimension rule and the counts, through its range index.
// The checks run first, in the same transaction; the writes run on no row when a check
// fails (UNWIND of an empty list).
WITH head(COLLECT {
       MATCH (n:Chunk {tenant: $tenant})
       WHERE n.embedding_dim IS NOT NULL
       RETURN n.embedding_dim
       LIMIT 1
     }) AS stored_dimension,
     COLLECT {
       UNWIND $rows AS row
       WITH row
       WHERE NOT EXISTS { MATCH (:Chunk {tenant: $tenant, id: row.id}) }
       RETURN row.id
     } AS missing
CALL (stored_dimension, missing) {
  UNWIND CASE
           WHEN size(missing) = 0
                AND (stored_dimension IS NULL OR stored_dimension = $dimension) THEN $rows
           ELSE []
         END AS row
  MATCH (n:Chunk {tenant: $tenant, id: row.id})
  USING INDEX SEEK n:Chunk(tenant, id)
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)
  SET n.embedding_dim = $dimension
  RETURN count(*) AS written
}
RETURN stored_dimension, missing, written
