// Records of a kind by id, in the order of $record_ids; an id without a record gives no row.
UNWIND range(0, size($record_ids) - 1) AS i
MATCH (r:Record {tenant: $tenant, kind: $kind, id: $record_ids[i]})
RETURN r {.id, .kind, .data_json, .owner, .blob,
          created_at: toString(r.created_at), updated_at: toString(r.updated_at)} AS record
ORDER BY i
