// How many relationships between the tenant's entities, invalidated ones included.
MATCH (:Entity {tenant: $tenant})-[r]->(:Entity {tenant: $tenant})
RETURN count(r) AS count
