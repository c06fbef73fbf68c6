// How many records of a kind the tenant holds.
MATCH (r:Record {tenant: $tenant, kind: $kind})
RETURN count(r) AS count
