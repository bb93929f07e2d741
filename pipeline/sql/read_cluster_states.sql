-- The appearances of the clusters in %(cluster_keys)s (those a run touched) whose reviewer
-- states differ, with their states, for the rule a merged cluster follows
-- (pipeline/cluster_state.py, merged_state): a cluster whose appearances all agree is left
-- out, so a run that joins nothing worked reads next to nothing.
SELECT c.cluster_key, c.id, c.status, c.assignee_id, c.tags, c.dismiss_reason, c.version
FROM claims c
WHERE c.cluster_key IN (
    SELECT cluster_key
    FROM claims
    WHERE cluster_key = ANY(%(cluster_keys)s::text[])
    GROUP BY cluster_key
    HAVING count(DISTINCT (status, assignee_id, tags, dismiss_reason, version)) > 1
)
ORDER BY c.cluster_key, c.id
