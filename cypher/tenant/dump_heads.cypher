// The head of every conversation of the tenant (null for one without a head).
MATCH (c:Conversation {tenant: $tenant})
OPTIONAL MATCH (c)-[:HEAD]->(head:Turn)
RETURN c.id AS session_id, head.id AS head_id
ORDER BY session_id
