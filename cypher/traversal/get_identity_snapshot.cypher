// Who an entity is: the entity, its facts in both directions and the entities at their
// other ends, in one round trip. No row at all when it does not exist (NotFound).
// $mode: current (believed at $at: valid and not expired) or as_of (valid at $at, whether
// expired since or not). $recorded: null, or a memory time: only facts the store held
// then, a fact expired after it read without the end its invalidation recorded (the
// rules of Relationship.held). A fact without valid_at holds from its created_at, except
// in a current read without $recorded. Times cross the wire as text ($at, $recorded: ISO
// 8601; toString on the way back): the driver's DateTime conversion costs about 60
// microseconds a value, more than the query on a snapshot of tens of times.
MATCH (e:Entity {tenant: $tenant, id: $entity_id})
USING INDEX SEEK e:Entity(tenant, id)
WITH e, datetime($at) AS at, datetime($recorded) AS recorded
RETURN e {.id, .type, .name, .attributes_json,
          created_at: toString(e.created_at), updated_at: toString(e.updated_at)} AS entity,
       [(e)-[r]-(other:Entity {tenant: $tenant})
        WHERE (recorded IS NULL OR r.created_at <= recorded)
          AND CASE
                WHEN r.valid_at IS NOT NULL THEN r.valid_at <= at
                WHEN $mode = 'current' AND recorded IS NULL THEN true
                ELSE r.created_at <= at
              END
          AND (r.invalid_at IS NULL OR at < r.invalid_at
               OR (recorded IS NOT NULL AND r.expired_at IS NOT NULL
                   AND recorded < r.expired_at))
          AND ($mode <> 'current' OR r.expired_at IS NULL OR at < r.expired_at)
        | {
            rel: r {.attributes_json, .session_id, .confidence, .source, .confirmed, .evidence,
                    valid_at: toString(r.valid_at), invalid_at: toString(r.invalid_at),
                    created_at: toString(r.created_at), expired_at: toString(r.expired_at),
                    source_id: startNode(r).id, target_id: endNode(r).id, type: type(r)},
            other: other {.id, .type, .name, .attributes_json,
                          created_at: toString(other.created_at),
                          updated_at: toString(other.updated_at)}
          }] AS facts
