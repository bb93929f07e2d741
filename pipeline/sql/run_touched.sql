-- The clusters whose statistics and members' priorities this run can have changed: those its
-- claims are in, those its stored claims left, and both sides of every remap.
CREATE TEMP TABLE run_touched ON COMMIT DROP AS
SELECT cluster_key FROM run_staged
UNION SELECT stored_cluster_key FROM run_staged WHERE stored_cluster_key IS DISTINCT FROM cluster_key AND stored_cluster_key <> ''
UNION SELECT old_key FROM claim_cluster_remap WHERE run_id = %(run_id)s
UNION SELECT new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s
