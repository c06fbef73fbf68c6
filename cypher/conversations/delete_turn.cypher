// Delete one turn in one query: its children are re-linked to its parent (or become
// roots when it had none), and if it was the head the head moves to its parent. The
// conversation is write-locked first, like append_turn. Counts whether it existed.
MATCH (t:Turn {tenant: $tenant, id: $turn_id})
USING INDEX SEEK t:Turn(tenant, id)
MATCH (c:Conversation {tenant: $tenant, id: t.session})
USING INDEX SEEK c:Conversation(tenant, id)
SET c._lock = true
WITH c, t
OPTIONAL MATCH (t)-[:PARENT]->(parent:Turn)
WITH c, t, parent,
     [(child:Turn)-[:PARENT]->(t) | child] AS children,
     EXISTS { (c)-[:HEAD]->(t) } AS was_head
FOREACH (child IN CASE WHEN parent IS NULL THEN [] ELSE children END |
  CREATE (child)-[:PARENT]->(parent))
FOREACH (new_head IN CASE WHEN was_head AND parent IS NOT NULL THEN [parent] ELSE [] END |
  CREATE (c)-[:HEAD]->(new_head))
REMOVE c._lock
DETACH DELETE t
RETURN count(*) AS deleted
