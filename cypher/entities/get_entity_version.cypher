// What changes whenever the tenant's entities change: how many there are and the latest update.
MATCH (e:Entity {tenant: $tenant})
RETURN count(e) AS count, max(e.updated_at) AS latest
