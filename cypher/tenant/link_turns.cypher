// PARENT links of loaded turns. $links: [{id, parent_id}], both turns of the tenant.
UNWIND $links AS link
MATCH (t:Turn {tenant: $tenant, id: link.id})
MATCH (p:Turn {tenant: $tenant, id: link.parent_id})
CREATE (t)-[:PARENT]->(p)
RETURN count(*) AS linked
