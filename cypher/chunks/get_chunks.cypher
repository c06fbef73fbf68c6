// The chunks that exist among $ids (distinct); the caller puts them in the order asked.
UNWIND $ids AS chunk_id
MATCH (c:Chunk {tenant: $tenant, id: chunk_id})
USING INDEX SEEK c:Chunk(tenant, id)
RETURN c {.id, .text, .source, .attributes_json, created_at: toString(c.created_at)} AS chunk
