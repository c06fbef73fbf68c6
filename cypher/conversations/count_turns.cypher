// Turns of one session (all branches), or of every session when $session_id is null.
MATCH (t:Turn {tenant: $tenant})
WHERE $session_id IS NULL OR t.session = $session_id
RETURN count(t) AS count
