// The turns of one session: list_turns, delete_conversation, the session log.
CREATE INDEX turn_tenant_session IF NOT EXISTS
FOR (n:Turn) ON (n.tenant, n.session)
