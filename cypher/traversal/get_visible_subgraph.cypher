// What an entity can see: itself, the entities within $depth hops over current facts
// (both directions, breadth-first as in find_neighbors), and the current facts among
// all of them. No row at all when the entity does not exist (NotFound). $depth is at most
// MAX_DEPTH (graphmem/checks.py); hops after the frontier empties do nothing.
MATCH (start:Entity {tenant: $tenant, id: $entity_id})
USING INDEX SEEK start:Entity(tenant, id)
WITH start, reduce(
  state = {frontier: [start], seen: [start]},
  hop IN range(1, $depth) |
  CASE WHEN size(state.frontier) = 0 THEN state ELSE reduce(
    level = {frontier: [], seen: state.seen},
    reached IN reduce(
      acc = [],
      f IN state.frontier |
      acc + [(f)-[r]-(m:Entity {tenant: $tenant})
             WHERE (r.valid_at IS NULL OR r.valid_at <= $now)
               AND (r.invalid_at IS NULL OR $now < r.invalid_at)
               AND (r.expired_at IS NULL OR $now < r.expired_at)
             | m]
    ) |
    CASE
      WHEN reached IN level.seen THEN level
      ELSE {frontier: level.frontier + [reached], seen: level.seen + [reached]}
    END
  ) END
).seen AS visible
RETURN [n IN visible | n {.id, .type, .name, .attributes_json,
                          created_at: toString(n.created_at), updated_at: toString(n.updated_at)}]
         AS entities,
       [n IN visible |
         [(n)-[r]->(m:Entity {tenant: $tenant})
          WHERE m IN visible
            AND (r.valid_at IS NULL OR r.valid_at <= $now)
            AND (r.invalid_at IS NULL OR $now < r.invalid_at)
            AND (r.expired_at IS NULL OR $now < r.expired_at)
          | r {.attributes_json, .session_id, .confidence, .source, .confirmed, .evidence,
               valid_at: toString(r.valid_at), invalid_at: toString(r.invalid_at),
               created_at: toString(r.created_at), expired_at: toString(r.expired_at),
               source_id: n.id, target_id: m.id, type: type(r)}]] AS rels
