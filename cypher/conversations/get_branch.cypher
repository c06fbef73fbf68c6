// The active branch of a session: from the head along PARENT to the root, newest first,
// cut to the newest $limit turns when $limit is not null. Each turn carries its parent's
// id (the next one along the chain). One row always; [] before the first turn.
OPTIONAL MATCH (:Conversation {tenant: $tenant, id: $session_id})-[:HEAD]->(head:Turn)
OPTIONAL MATCH chain = (head)-[:PARENT*0..]->(root:Turn)
  WHERE NOT EXISTS { (root)-[:PARENT]->(:Turn) }
WITH CASE WHEN chain IS NULL THEN [] ELSE nodes(chain) END AS turns
WITH turns,
     CASE WHEN $limit IS NOT NULL AND $limit < size(turns) THEN $limit ELSE size(turns) END
       AS wanted
UNWIND range(0, wanted - 1) AS i
WITH i, turns[i] AS t, turns[i + 1] AS parent
ORDER BY i
RETURN collect(t {.id, .session, .role, .speaker, .content, .summary, .turn_id, .created_at,
                  .trajectory_json, .artifacts_json, .hidden_artifacts_json,
                  parent_id: parent.id}) AS turns
