// Insert or replace entities by id, one row each (ids are unique within $rows).
// $rows: [{id, created_at, updated_at, props}], props = every stored property of the entity
// (tenant, id, type, name, name_lower, attributes_json, search_text, and the attr./attrjson.
// filter columns). A replaced entity keeps its created_at and gets updated_at = $now (never
// before created_at); all its other properties are replaced, so removed attributes
// disappear. The embedding (and its embedding_dim) is kept: retrieval owns it.
// Times arrive as ISO 8601 text ($now, row.created_at, row.updated_at; the driver's
// DateTime conversion would cost more than the write) and are stored as DateTime.
// Returns one row: how many were written, and the times of those whose stored times are
// not the ones sent (replaced entities), as text.
WITH datetime($now) AS now
UNWIND $rows AS row
WITH now, row, datetime(row.created_at) AS sent_created, datetime(row.updated_at) AS sent_updated
MERGE (e:Entity {tenant: $tenant, id: row.id})
  ON CREATE SET e.created_at = sent_created, e.updated_at = sent_updated
  ON MATCH SET e.updated_at = CASE WHEN now < e.created_at THEN e.created_at ELSE now END
WITH e, row, sent_created, sent_updated, e.created_at AS created_at, e.updated_at AS updated_at,
     row.props AS props
SET e = props {.*,
               tenant: $tenant,
               id: row.id,
               created_at: created_at,
               updated_at: updated_at,
               embedding: e.embedding,
               embedding_dim: e.embedding_dim}
RETURN count(*) AS written,
       collect(CASE
                 WHEN created_at <> sent_created OR updated_at <> sent_updated
                   THEN {id: row.id, created_at: toString(created_at),
                         updated_at: toString(updated_at)}
               END) AS changed
