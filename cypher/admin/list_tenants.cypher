// Every tenant that holds something: the tenants of Entity, Turn, Chunk and Record nodes
// (a Conversation node never exists without its turns), without repeats, sorted.
CALL () {
  MATCH (n:Entity) RETURN DISTINCT n.tenant AS tenant
  UNION
  MATCH (n:Turn) RETURN DISTINCT n.tenant AS tenant
  UNION
  MATCH (n:Chunk) RETURN DISTINCT n.tenant AS tenant
  UNION
  MATCH (n:Record) RETURN DISTINCT n.tenant AS tenant
}
RETURN tenant
ORDER BY tenant
