// How many chunks of the tenant have an embedding, and its dimension (null when none):
// one dimension per (tenant, kind), so any one vector tells it.
MATCH (n:Chunk {tenant: $tenant})
WHERE n.embedding_dim IS NOT NULL
RETURN count(n) AS count, min(n.embedding_dim) AS dimension
