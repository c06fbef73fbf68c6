// One record of a kind by id; no row when there is none (NotFound).
MATCH (r:Record {tenant: $tenant, kind: $kind, id: $record_id})
RETURN r {.id, .kind, .data_json, .owner, .blob,
          created_at: toString(r.created_at), updated_at: toString(r.updated_at)} AS record
