// Uniqueness of Turn ids within a tenant. Its backing index serves every
// (tenant, id) lookup. A composite uniqueness constraint works on Neo4j Community
// (node key and existence constraints would need Enterprise).
CREATE CONSTRAINT turn_tenant_id IF NOT EXISTS
FOR (n:Turn) REQUIRE (n.tenant, n.id) IS UNIQUE
