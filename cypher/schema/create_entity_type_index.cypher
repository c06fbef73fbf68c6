// Entities by type (find_entities with a type).
CREATE INDEX entity_tenant_type IF NOT EXISTS
FOR (n:Entity) ON (n.tenant, n.type)
