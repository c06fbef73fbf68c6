// The relationships of one entity, ordered by (source_id, target_id, type). No row at all
// when the entity does not exist (the caller raises NotFound).
// $direction: out | in | both. $types: null or a list of types.
// $mode: current (valid at $at and not expired at $at), as_of (valid at $at, whether
// expired since or not) or all. $recorded: null, or a memory time: only facts the store
// held then, a fact expired after it read without the end its invalidation recorded (the
// rules of Relationship.held). A fact without valid_at holds from its created_at, except
// in a current read without $recorded.
MATCH (e:Entity {tenant: $tenant, id: $entity_id})
USING INDEX SEEK e:Entity(tenant, id)
CALL (e) {
  MATCH (e)-[r]-(other:Entity {tenant: $tenant})
  WHERE ($direction = 'both'
         OR ($direction = 'out' AND startNode(r) = e)
         OR ($direction = 'in' AND endNode(r) = e))
    AND ($types IS NULL OR type(r) IN $types)
    AND ($mode = 'all'
         OR (($recorded IS NULL OR r.created_at <= $recorded)
             AND CASE
                   WHEN r.valid_at IS NOT NULL THEN r.valid_at <= $at
                   WHEN $mode = 'current' AND $recorded IS NULL THEN true
                   ELSE r.created_at <= $at
                 END
             AND (r.invalid_at IS NULL OR $at < r.invalid_at
                  OR ($recorded IS NOT NULL AND r.expired_at IS NOT NULL
                      AND $recorded < r.expired_at))
             AND ($mode <> 'current' OR r.expired_at IS NULL OR $at < r.expired_at)))
  WITH DISTINCT r
  WITH r, startNode(r).id AS source_id, endNode(r).id AS target_id
  ORDER BY source_id, target_id, type(r)
  LIMIT $limit
  RETURN collect(r {.attributes_json, .session_id, .confidence, .source, .confirmed, .evidence,
                    valid_at: toString(r.valid_at), invalid_at: toString(r.invalid_at),
                    created_at: toString(r.created_at), expired_at: toString(r.expired_at),
                    source_id: source_id, target_id: target_id, type: type(r)}) AS rels
}
RETURN rels
