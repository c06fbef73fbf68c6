// Delete everything the tenant holds: its entities, turns, conversations, chunks and records,
// with their relationships. Each label is found through its tenant index.
// In batches of 1,000 nodes, each its own transaction, so a large tenant never needs one
// huge transaction state (a 100,000-entity world with 500,000 relationships would not fit
// a 2 GB heap at once). Hence an auto-commit query (CALL IN TRANSACTIONS needs one); after
// a failure part of the tenant may be gone, and running it again deletes the rest.
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
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(*) AS deleted
