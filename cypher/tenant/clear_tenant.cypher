// Delete everything the tenant holds: its entities, turns, conversations, chunks and records,
// with their relationships. Each label is found through its tenant index.
CALL () {
  MATCH (n:Entity {tenant: $tenant}) RETURN n
  UNION ALL
  MATCH (n:Turn {tenant: $tenant}) RETURN n
  UNION ALL
  MATCH (n:Conversation {tenant: $tenant}) RETURN n
  UNION ALL
  MATCH (n:Chunk {tenant: $tenant}) RETURN n
  UNION ALL
  MATCH (n:Record {tenant: $tenant}) RETURN n
}
DETACH DELETE n
RETURN count(*) AS deleted
