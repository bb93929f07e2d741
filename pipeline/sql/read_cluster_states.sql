-- The clusters this run's remaps merge (claim_cluster_remap: old_key -> new_key), each with the
-- cluster it merges into (new_key, itself included where it is stored), its reviewer state and
-- its first appearance, for the rule a merged cluster follows (pipeline/cluster_state.py,
-- merged_state). Read before the merge moves any appearance, so each side's first appearance
-- is still its own. A run that merges no stored cluster reads nothing.
WITH remap AS (
    SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s AND old_key <> new_key
), merging AS (
    SELECT new_key, old_key AS cluster_key FROM remap
    UNION
    SELECT new_key, new_key FROM remap
)
SELECT m.new_key, m.cluster_key, f.first_id, cc.status, cc.assignee_id, cc.tags, cc.dismiss_reason, cc.version
FROM merging m
JOIN claim_clusters cc ON cc.cluster_key = m.cluster_key
CROSS JOIN LATERAL (SELECT min(c.id) AS first_id FROM claims c WHERE c.cluster_key = m.cluster_key) f
WHERE f.first_id IS NOT NULL
ORDER BY m.new_key, f.first_id
