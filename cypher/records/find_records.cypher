// Records of a kind matching every condition, ordered by (created_at, id), newest first
// when $newest_first. $where maps filter columns to values ("attr.<key>" for a scalar,
// "attrjson.<key>" for canonical JSON such as null; see mapping.py): a data key the record
// lacks compares as null and never matches. $since / $until: null means no bound.
// $limit is always given.
MATCH (r:Record {tenant: $tenant, kind: $kind})
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
