// The number of chunks of the tenant.
MATCH (c:Chunk {tenant: $tenant})
RETURN count(c) AS count
