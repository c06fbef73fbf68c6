// Who an entity is now: the entity, its current facts in both directions and the entities
// at their other ends, in one round trip. No row at all when it does not exist (NotFound).
// Times cross the wire as text ($now is ISO 8601; toString on the way back): the driver's
// DateTime conversion costs about 60 microseconds a value, more than the query on a
// snapshot of tens of times.
MATCH (e:Entity {tenant: $tenant, id: $entity_id})
WITH e, datetime($now) AS now
RETURN e {.id, .type, .name, .attributes_json,
          created_at: toString(e.created_at), updated_at: toString(e.updated_at)} AS entity,
       [(e)-[r]-(other:Entity {tenant: $tenant})
        WHERE (r.valid_at IS NULL OR r.valid_at <= now)
          AND (r.invalid_at IS NULL OR now < r.invalid_at)
          AND (r.expired_at IS NULL OR now < r.expired_at)
        | {
            rel: r {.attributes_json, .session_id, .confidence, .source, .confirmed, .evidence,
                    valid_at: toString(r.valid_at), invalid_at: toString(r.invalid_at),
                    created_at: toString(r.created_at), expired_at: toString(r.expired_at),
                    source_id: startNode(r).id, target_id: endNode(r).id, type: type(r)},
            other: other {.id, .type, .name, .attributes_json,
                          created_at: toString(other.created_at),
                          updated_at: toString(other.updated_at)}
          }] AS facts
