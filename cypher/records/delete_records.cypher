// Delete records of a kind by id; how many existed.
MATCH (r:Record {tenant: $tenant, kind: $kind})
WHERE r.id IN $ids
DETACH DELETE r
RETURN count(*) AS deleted
