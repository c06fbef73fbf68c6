// Entitys with an embedding, by tenant and dimension: the per-(tenant, kind) dimension rule,
// count_embeddings, and the candidates of an exact vector search, without a label scan.
CREATE INDEX entity_tenant_embedding_dim IF NOT EXISTS
FOR (n:Entity) ON (n.tenant, n.embedding_dim)
