// Records by owner (find_records with an owner: an NPC's beliefs, a campaign's recaps).
CREATE INDEX record_tenant_kind_owner IF NOT EXISTS
FOR (n:Record) ON (n.tenant, n.kind, n.owner)
