// Entities by their whole casefolded name (find_entities with a name: governed facts find
// the entity a subject or value names through it).
CREATE INDEX entity_tenant_name IF NOT EXISTS
FOR (n:Entity) ON (n.tenant, n.name_lower)
