// Entities matching every given condition, ordered by id.
// $type / $name_exact / $name_lower: null means no condition; name_exact (the whole name)
// and name_lower (a part of it) hold casefolded text (Python str.casefold, as the embedded
// backend compares). $attrs maps filter columns to values:
// "attr.<key>" for a scalar attribute, "attrjson.<key>" for its canonical JSON text
// (lists, maps, null, out-of-range integers); see mapping.py. $limit is always given.
MATCH (e:Entity {tenant: $tenant})
WHERE ($type IS NULL OR e.type = $type)
  AND ($name_exact IS NULL OR e.name_lower = $name_exact)
  AND ($name_lower IS NULL OR e.name_lower CONTAINS $name_lower)
  AND all(column IN keys($attrs) WHERE e[column] = $attrs[column])
RETURN e {.id, .type, .name, .attributes_json,
          created_at: toString(e.created_at), updated_at: toString(e.updated_at)} AS entity
ORDER BY e.id
LIMIT $limit
