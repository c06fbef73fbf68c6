// How many entities the tenant holds.
MATCH (e:Entity {tenant: $tenant})
RETURN count(e) AS count
