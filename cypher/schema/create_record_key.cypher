// Uniqueness of record ids within a tenant and kind; its backing index serves every
// (tenant, kind, id) lookup and the (tenant, kind) scans of find_records.
CREATE CONSTRAINT record_tenant_kind_id IF NOT EXISTS
FOR (n:Record) REQUIRE (n.tenant, n.kind, n.id) IS UNIQUE
