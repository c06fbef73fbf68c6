// Every MENTIONS edge of the tenant's turns and chunks, as (kind, node_id, entity_id).
CALL () {
  MATCH (n:Turn {tenant: $tenant})-[:MENTIONS]->(e:Entity {tenant: $tenant})
  RETURN 'turn' AS kind, n.id AS node_id, e.id AS entity_id
  UNION ALL
  MATCH (n:Chunk {tenant: $tenant})-[:MENTIONS]->(e:Entity {tenant: $tenant})
  RETURN 'chunk' AS kind, n.id AS node_id, e.id AS entity_id
}
RETURN kind, node_id, entity_id
ORDER BY kind, node_id, entity_id
