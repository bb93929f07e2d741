-- Every appearance of each cluster in %(states)s (a JSON array, one object per cluster, from
-- pipeline.merge.unify_clusters) takes the cluster's one reviewer state (merged_state,
-- pipeline/cluster_state.py); only rows that differ are written. A cluster whose merge
-- unified two reviewers' work ("audited") gets an audit row "cluster.merge" (actor: the
-- system) on its first appearance naming the clusters that became one and the states it
-- unified. Notes, evidence, verdicts and audit rows are never touched: they stay on the
-- appearance they were written on and the web app reads them for the whole cluster, so a
-- merge loses none. %(run_id)s names the run whose remaps merged the clusters (none: the
-- migration that first unified the stored clusters).
WITH unified AS (
    SELECT u.cluster_key, u.first_id, u.status, u.assignee_id, u.dismiss_reason, u.version, u.states, u.audited,
           ARRAY(SELECT jsonb_array_elements_text(u.tags))::varchar(40)[] AS tags
    FROM jsonb_to_recordset(%(states)s::jsonb) AS u(
        cluster_key text, first_id bigint, status text, assignee_id bigint, dismiss_reason text, tags jsonb,
        version integer, states jsonb, audited boolean
    )
), updated AS (
    UPDATE claims c
    SET status = u.status, assignee_id = u.assignee_id, dismiss_reason = u.dismiss_reason, tags = u.tags,
        version = u.version, updated_at = now()
    FROM unified u
    WHERE c.cluster_key = u.cluster_key
      AND (c.status, c.assignee_id, c.dismiss_reason, c.tags, c.version)
          IS DISTINCT FROM (u.status, u.assignee_id, u.dismiss_reason, u.tags, u.version)
)
INSERT INTO audit_events (actor_id, verb, object_type, object_id, before, after, comment, created_at)
SELECT NULL, 'cluster.merge', 'claim', u.first_id,
       jsonb_build_object('states', u.states),
       jsonb_build_object(
           'status', u.status, 'assignee', (SELECT username FROM auth_user WHERE id = u.assignee_id), 'version', u.version,
           'tags', to_jsonb(u.tags), 'cluster', u.cluster_key, 'merged', to_jsonb(m.merged)),
       'Clusters merged: ' || array_to_string(m.merged, ', ') || ' became one; kept the most advanced state and every tag.',
       now()
FROM unified u
CROSS JOIN LATERAL (
    SELECT ARRAY(SELECT u.cluster_key UNION SELECT r.old_key FROM claim_cluster_remap r
                 WHERE r.run_id = %(run_id)s AND r.new_key = u.cluster_key ORDER BY 1) AS merged
) m
WHERE u.audited
