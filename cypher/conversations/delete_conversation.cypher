// Delete every turn of a session and its conversation node; count the turns.
OPTIONAL MATCH (t:Turn {tenant: $tenant, session: $session_id})
DETACH DELETE t
WITH count(t) AS deleted
OPTIONAL MATCH (c:Conversation {tenant: $tenant, id: $session_id})
USING INDEX SEEK c:Conversation(tenant, id)
DETACH DELETE c
RETURN deleted
