// Insert or replace records of one kind by id, one row each (ids are unique within $rows).
// $rows: [{id, created_at, updated_at, props}], props = every stored property of the record
// (tenant, kind, id, data_json, owner, blob and the attr./attrjson. filter columns of its
// data; a null owner or blob is no property). A
// replaced record keeps its created_at and gets updated_at = $now (never before
// created_at); its other properties are replaced, so removed data keys disappear.
// Times ($now, row.created_at, row.updated_at) arrive as ISO 8601 text, stored as DateTime.
WITH datetime($now) AS now
UNWIND $rows AS row
MERGE (r:Record {tenant: $tenant, kind: $kind, id: row.id})
  ON CREATE SET r.created_at = datetime(row.created_at), r.updated_at = datetime(row.updated_at)
  ON MATCH SET r.updated_at = CASE WHEN now < r.created_at THEN r.created_at ELSE now END
WITH r, row, r.created_at AS created_at, r.updated_at AS updated_at
SET r = row.props
SET r.tenant = $tenant,
    r.kind = $kind,
    r.id = row.id,
    r.created_at = created_at,
    r.updated_at = updated_at
RETURN row.id AS id, toString(created_at) AS created_at, toString(updated_at) AS updated_at
