// The shortest directed path of current facts from $source_id to $target_id, both ends
// included, at most $max_depth hops. One row always: whether each end exists (NotFound
// otherwise) and the path's entities ([] when there is none within $max_depth).
// The search starts from `origin`, which is null unless both ends exist and differ: a
// path from an entity to itself is the entity alone, and a shortest-path search between
// one node and itself would look for a cycle (or, planned as the legacy ShortestPath
// operator, fail on common end nodes). An OPTIONAL MATCH from a null node matches nothing.
// `origin` carries its label: on Neo4j 5.26.0 a SHORTEST search from an unlabelled null
// start fails with EntityNotFound ("Node -1 was unexpectedly deleted").
// The hop bound is a parameter, so it is a post-filter on the path found: when the
// shortest path is longer than $max_depth, no path is within it.
// Among equally short paths SHORTEST 1 returns any one (the Cypher manual: "which one
// is returned is non-deterministic").
OPTIONAL MATCH (a:Entity {tenant: $tenant, id: $source_id})
USING INDEX SEEK a:Entity(tenant, id)
OPTIONAL MATCH (b:Entity {tenant: $tenant, id: $target_id})
USING INDEX SEEK b:Entity(tenant, id)
WITH a, b, CASE WHEN a <> b THEN a END AS origin
OPTIONAL MATCH p = SHORTEST 1 (origin:Entity)-[r WHERE ($rel_types IS NULL OR type(r) IN $rel_types)
                                          AND (r.valid_at IS NULL OR r.valid_at <= $now)
                                          AND (r.invalid_at IS NULL OR $now < r.invalid_at)
                                          AND (r.expired_at IS NULL OR $now < r.expired_at)]->+(b)
  WHERE length(p) <= $max_depth
RETURN a IS NOT NULL AS has_source,
       b IS NOT NULL AS has_target,
       CASE
         WHEN a IS NULL OR b IS NULL THEN []
         WHEN a = b THEN [a {.id, .type, .name, .attributes_json,
                             created_at: toString(a.created_at),
                             updated_at: toString(a.updated_at)}]
         WHEN p IS NULL THEN []
         ELSE [n IN nodes(p) | n {.id, .type, .name, .attributes_json,
                                  created_at: toString(n.created_at),
                                  updated_at: toString(n.updated_at)}]
       END AS path
