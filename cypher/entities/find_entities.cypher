// Entities matching every given condition, ordered by id.
// $type / $name_exact / $name_lower: null means no condition; name_exact (the whole name)
// and name_lower (a part of it) hold casefolded text (Python str.casefold, as the embedded
// backend compares). $attrs maps filter columns to values:
// "attr.<key>" for a scalar attribute, "attrjson.<key>" for its canonical JSON text
// (lists, maps, null, out-of-range integers); see mapping.py. $limit is always given.
// A name too long for the name index is stored in name_lower_long instead of name_lower
// (mapping.INDEXED_NAME_BYTES).
MATCH (e:Entity {tenant: $tenant})
WHERE ($type IS NULL OR e.type = $type)
  AND ($name_exact IS NULL OR e.name_lower = $name_exact OR e.name_lower_long = $name_exact)
  AND ($name_lower IS NULL OR coalesce(e.name_lower, e.name_lower_long) CONTAINS $name_lower)
  AND all(column IN keys($attrs) WHERE e[column] = $attrs[column])
RETURN e {.id, .type, .name, .attributes_json,
          created_at: toString(e.created_at), updated_at: toString(e.updated_at)} AS entity
ORDER BY e.id
LIMIT $limit
