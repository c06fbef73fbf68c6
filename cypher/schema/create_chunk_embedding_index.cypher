// Chunks with an embedding, by tenant and dimension: the per-(tenant, kind) dimension rule,
// count_embeddings, and the candidates of an exact vector search, without a label scan.
CREATE INDEX chunk_tenant_embedding_dim IF NOT EXISTS
FOR (n:Chunk) ON (n.tenant, n.embedding_dim)
