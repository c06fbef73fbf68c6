// Set the entities each chunk mentions, replacing what it mentioned before, in one query:
// or, when a chunk or an entity is unknown, write nothing and name them.
// $links: [{node_id, entity_ids}]: node ids distinct, entity ids distinct per node (an
// empty list removes every mention of the node).
// The checks run first, in the same transaction; the writes run on no row at all when
// anything is missing (UNWIND of an empty list), so a bad batch changes nothing.
WITH COLLECT {
       UNWIND $links AS link
       WITH link
       WHERE NOT EXISTS { MATCH (:Chunk {tenant: $tenant, id: link.node_id}) }
       RETURN link.node_id
     } AS missing_nodes,
     COLLECT {
       UNWIND $links AS link
       UNWIND link.entity_ids AS entity_id
       WITH DISTINCT entity_id
       WHERE NOT EXISTS { MATCH (:Entity {tenant: $tenant, id: entity_id}) }
       RETURN entity_id
     } AS missing_entities
CALL (missing_nodes, missing_entities) {
  UNWIND CASE WHEN size(missing_nodes) + size(missing_entities) = 0 THEN $links ELSE [] END
    AS link
  MATCH (n:Chunk {tenant: $tenant, id: link.node_id})
  USING INDEX SEEK n:Chunk(tenant, id)
  CALL (n) {
    MATCH (n)-[old:MENTIONS]->(:Entity)
    DELETE old
  }
  CALL (n, link) {
    UNWIND link.entity_ids AS entity_id
    MATCH (e:Entity {tenant: $tenant, id: entity_id})
    USING INDEX SEEK e:Entity(tenant, id)
    CREATE (n)-[:MENTIONS]->(e)
  }
  RETURN count(*) AS linked
}
RETURN missing_nodes, missing_entities, linked
