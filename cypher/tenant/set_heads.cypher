// Point each listed conversation's HEAD at a turn. $heads: [{session_id, head_id}].
UNWIND $heads AS h
MATCH (c:Conversation {tenant: $tenant, id: h.session_id})
USING INDEX SEEK c:Conversation(tenant, id)
MATCH (t:Turn {tenant: $tenant, id: h.head_id})
USING INDEX SEEK t:Turn(tenant, id)
SET c._lock = true
WITH c, t
OPTIONAL MATCH (c)-[old:HEAD]->(:Turn)
DELETE old
WITH DISTINCT c, t
CREATE (c)-[:HEAD]->(t)
REMOVE c._lock
RETURN count(*) AS moved
