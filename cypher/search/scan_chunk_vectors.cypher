// Exact nearest chunks of $vector: cosine similarity against every chunk of the tenant
// whose vector has $dimension (or, with $scope, only chunks that mention an entity named in $scope), best first, then by id.
// Used when no vector index of this dimension is online, and as the last resort of an
// over-fetch that did not fill $k. The candidates come from the (tenant, embedding_dim)
// range index, or from the scope's entities along MENTIONS.
// vector.similarity.cosine returns the same [0, 1] score as the vector index ("identical
// to those used by Neo4j's vector search indexes", Cypher manual, Vector functions).
// `dimension` is the tenant's stored dimension for chunks (null: no vector yet).
WITH head(COLLECT {
       MATCH (n:Chunk {tenant: $tenant})
       WHERE n.embedding_dim IS NOT NULL
       RETURN n.embedding_dim
       LIMIT 1
     }) AS dimension
CALL () {
  CALL () {
    MATCH (n:Chunk {tenant: $tenant, embedding_dim: $dimension})
    WHERE $scope IS NULL
    RETURN n
    UNION
    UNWIND coalesce($scope, []) AS entity_id
    MATCH (key_e:Entity {tenant: $tenant, id: entity_id})<-[:MENTIONS]-(n:Chunk {tenant: $tenant})
    USING INDEX SEEK key_e:Entity(tenant, id)
    WHERE n.embedding_dim = $dimension
    RETURN n
  }
  WITH n, vector.similarity.cosine(n.embedding, $vector) AS score
  ORDER BY score DESC, n.id
  LIMIT $k
  RETURN collect({id: n.id, score: score}) AS hits
}
RETURN dimension, hits
