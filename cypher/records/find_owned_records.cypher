// The records of one owner (through the record_tenant_kind_owner index), matching every
// condition as find_records does: $where maps filter columns to values ("attr.<key>" or
// "attrjson.<key>", see mapping.py); $since / $until: null means no bound; $limit is
// always given. Ordered by (created_at, id), newest first when $newest_first.
MATCH (r:Record {tenant: $tenant, kind: $kind, owner: $owner})
WHERE all(column IN keys($where) WHERE r[column] = $where[column])
  AND ($since IS NULL OR r.created_at >= $since)
  AND ($until IS NULL OR r.created_at < $until)
RETURN r {.id, .kind, .data_json, .owner, .blob,
          created_at: toString(r.created_at), updated_at: toString(r.updated_at)} AS record
ORDER BY
  CASE WHEN $newest_first THEN r.created_at END DESC,
  CASE WHEN $newest_first THEN r.id END DESC,
  CASE WHEN $newest_first THEN null ELSE r.created_at END ASC,
  CASE WHEN $newest_first THEN null ELSE r.id END ASC
LIMIT $limit
