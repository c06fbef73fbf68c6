// Who an entity is now: the entity, its current facts in both directions and the entities
// at their other ends, in one round trip. No row at all when it does not exist (NotFound).
MATCH (e:Entity {tenant: $tenant, id: $entity_id})
RETURN e {.id, .type, .name, .attributes_json, .created_at, .updated_at} AS entity,
       [(e)-[r]-(other:Entity {tenant: $tenant})
        WHERE (r.valid_at IS NULL OR r.valid_at <= $now)
          AND (r.invalid_at IS NULL OR $now < r.invalid_at)
          AND (r.expired_at IS NULL OR $now < r.expired_at)
        | {
            rel: r {.*, source_id: startNode(r).id, target_id: endNode(r).id, type: type(r)},
            other: other {.id, .type, .name, .attributes_json, .created_at, .updated_at}
          }] AS facts
