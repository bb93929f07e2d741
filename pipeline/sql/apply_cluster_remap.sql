-- Stored clusters the clustering merged into others move wholesale to the surviving key.
UPDATE claims SET cluster_key = r.new_key
FROM (SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s) r
WHERE claims.cluster_key = r.old_key AND r.old_key <> r.new_key
