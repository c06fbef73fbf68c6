// PARENT links of loaded turns. $links: [{id, parent_id}], both turns of the tenant.
UNWIND $links AS link
MATCH (t:Turn {tenant: $tenant, id: link.id})
USING INDEX SEEK t:Turn(tenant, id)
MATCH (p:Turn {tenant: $tenant, id: link.parent_id})
USING INDEX SEEK p:Turn(tenant, id)
CREATE (t)-[:PARENT]->(p)
RETURN count(*) AS linked
