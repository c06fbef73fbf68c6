// Uniqueness of Entity ids within a tenant. Its backing index serves every
// (tenant, id) lookup. A composite uniqueness constraint works on Neo4j Community
// (node key and existence constraints would need Enterprise).
CREATE CONSTRAINT entity_tenant_id IF NOT EXISTS
FOR (n:Entity) REQUIRE (n.tenant, n.id) IS UNIQUE
