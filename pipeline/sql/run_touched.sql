-- The clusters whose statistics and members' priorities this run can have changed: those its
-- claims are in, those its stored claims left, and both sides of every remap; as one array,
-- the cluster keys the merge passes to the statements that follow it (cluster_keys).
SELECT COALESCE(array_agg(cluster_key), '{}') FROM (
SELECT cluster_key FROM run_staged
UNION SELECT stored_cluster_key FROM run_staged WHERE stored_cluster_key IS DISTINCT FROM cluster_key
UNION SELECT old_key FROM claim_cluster_remap WHERE run_id = %(run_id)s
UNION SELECT new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s
) touched
