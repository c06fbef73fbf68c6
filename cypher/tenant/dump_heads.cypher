// The head of every conversation of the tenant that holds at least one turn (null for one
// whose head was deleted with its root). A conversation emptied by delete_turn keeps its
// node but is no session any more, as on the embedded backend.
MATCH (c:Conversation {tenant: $tenant})
WHERE EXISTS { MATCH (:Turn {tenant: $tenant, session: c.id}) }
OPTIONAL MATCH (c)-[:HEAD]->(head:Turn)
RETURN c.id AS session_id, head.id AS head_id
ORDER BY session_id
