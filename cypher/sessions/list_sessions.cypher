// Every session with at least one turn, most recently active first (ties by session id,
// descending, as on the embedded backend).
MATCH (t:Turn {tenant: $tenant})
WITH t.session AS session_id,
     count(t) AS turn_count,
     min(t.created_at) AS first_at,
     max(t.created_at) AS last_at
OPTIONAL MATCH (:Conversation {tenant: $tenant, id: session_id})-[:HEAD]->(head:Turn)
WITH session_id, turn_count, first_at, last_at, head
ORDER BY last_at DESC, session_id DESC
RETURN session_id, turn_count, toString(first_at) AS first_at, toString(last_at) AS last_at,
       head.id AS head_id
