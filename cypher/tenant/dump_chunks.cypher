// Every chunk of the tenant, by id.
MATCH (c:Chunk {tenant: $tenant})
RETURN c {.id, .text, .source, .attributes_json, created_at: toString(c.created_at)} AS chunk
ORDER BY c.id
