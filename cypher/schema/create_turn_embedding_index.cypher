// Turns with an embedding, by tenant and dimension: the per-(tenant, kind) dimension rule,
// count_embeddings, and the candidates of an exact vector search, without a label scan.
CREATE INDEX turn_tenant_embedding_dim IF NOT EXISTS
FOR (n:Turn) ON (n.tenant, n.embedding_dim)
