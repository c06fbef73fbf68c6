// Insert or replace chunks by id, one row each (ids are unique within $rows).
// $rows: [{id, created_at (ISO 8601 text), props}], props = tenant, id, text, source, attributes_json,
// search_text (source may be null: `+=` with null removes it). A replaced chunk keeps
// its created_at, its embedding and its MENTIONS edges: only the listed keys change.
UNWIND $rows AS row
MERGE (c:Chunk {tenant: $tenant, id: row.id})
  ON CREATE SET c.created_at = datetime(row.created_at)
SET c += row.props
RETURN row.id AS id, toString(c.created_at) AS created_at
