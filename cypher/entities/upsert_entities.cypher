// Insert or replace entities by id, one row each (ids are unique within $rows).
// $rows: [{id, created_at, updated_at, props}], props = every stored property of the entity
// (tenant, id, type, name, name_lower, attributes_json, search_text, and the attr./attrjson.
// filter columns). A replaced entity keeps its created_at and gets updated_at = $now (never
// before created_at); all its other properties are replaced, so removed attributes
// disappear. The embedding (and its embedding_dim) is kept: retrieval owns it.
UNWIND $rows AS row
MERGE (e:Entity {tenant: $tenant, id: row.id})
  ON CREATE SET e.created_at = row.created_at, e.updated_at = row.updated_at
  ON MATCH SET e.updated_at = CASE WHEN $now < e.created_at THEN e.created_at ELSE $now END
WITH e, row, e.created_at AS created_at, e.updated_at AS updated_at, e.embedding AS embedding,
     e.embedding_dim AS embedding_dim
SET e = row.props
SET e.tenant = $tenant,
    e.id = row.id,
    e.created_at = created_at,
    e.updated_at = updated_at,
    e.embedding = embedding,
    e.embedding_dim = embedding_dim
RETURN row.id AS id, created_at, updated_at
