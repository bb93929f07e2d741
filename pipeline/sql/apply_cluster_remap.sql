-- Stored clusters the clustering merged into others move wholesale to the surviving key, and
-- so do the reviewers' splits that keep an appearance apart from them (claim_cluster_splits).
WITH remap AS (
    SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s AND old_key <> new_key
), splits AS (
    UPDATE claim_cluster_splits s SET apart_cluster_key = r.new_key
    FROM remap r
    WHERE s.apart_cluster_key = r.old_key
)
UPDATE claims SET cluster_key = r.new_key
FROM remap r
WHERE claims.cluster_key = r.old_key
