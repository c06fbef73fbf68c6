// Delete chunks with their MENTIONS edges (and so their embeddings, which are properties);
// count how many existed. $ids are distinct.
UNWIND $ids AS chunk_id
MATCH (c:Chunk {tenant: $tenant, id: chunk_id})
USING INDEX SEEK c:Chunk(tenant, id)
DETACH DELETE c
RETURN count(*) AS deleted
