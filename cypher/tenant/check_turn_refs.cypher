// Before a load writes anything: which new turn ids are taken already, and which turns
// named as parents or heads (not in the load itself) are not turns of the given session.
// $turn_ids: [id]; $refs: [{id, session}].
CALL () {
  UNWIND $turn_ids AS turn_id
  MATCH (t:Turn {tenant: $tenant, id: turn_id})
  USING INDEX SEEK t:Turn(tenant, id)
  RETURN collect(turn_id) AS taken
}
CALL () {
  UNWIND $refs AS ref
  OPTIONAL MATCH (t:Turn {tenant: $tenant, id: ref.id})
  USING INDEX SEEK t:Turn(tenant, id)
  WITH ref, t
  WHERE t IS NULL OR t.session <> ref.session
  RETURN collect(ref.id) AS missing
}
RETURN taken, missing
