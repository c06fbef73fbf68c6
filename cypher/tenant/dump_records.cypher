// Every record of the tenant, ordered by (kind, created_at, id) as the embedded backend
// dumps them.
MATCH (r:Record {tenant: $tenant})
RETURN r {.id, .kind, .data_json, .owner, .blob,
          created_at: toString(r.created_at), updated_at: toString(r.updated_at)} AS record
ORDER BY r.kind, r.created_at, r.id
