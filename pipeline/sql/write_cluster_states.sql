-- The state each merged cluster keeps (%(states)s: a JSON array, one object per cluster, from
-- pipeline.merge.unify_clusters by merged_state, pipeline/cluster_state.py), on its one row:
-- inserted where the surviving key is new (its statistics follow, refresh_clusters.sql),
-- written only where it differs. A cluster whose merge unified two reviewers' work
-- ("audited") gets an audit row "cluster.merge" (actor: the system) on its first appearance
-- naming the clusters that became one and the states it unified. Notes, evidence, verdicts
-- and audit rows are never touched: they stay on the appearance they were written on and the
-- web app reads them for the whole cluster, so a merge loses none. %(run_id)s names the run
-- whose remaps merged the clusters.
WITH unified AS (
    SELECT u.cluster_key, u.first_id, u.status, u.assignee_id, u.dismiss_reason, u.version, u.states, u.audited,
           ARRAY(SELECT jsonb_array_elements_text(u.tags))::varchar(40)[] AS tags
    FROM jsonb_to_recordset(%(states)s::jsonb) AS u(
        cluster_key text, first_id bigint, status text, assignee_id bigint, dismiss_reason text, tags jsonb,
        version integer, states jsonb, audited boolean
    )
), written AS (
    INSERT INTO claim_clusters AS cc (cluster_key, size, outlet_count, status, assignee_id, dismiss_reason, tags, version, updated_at)
    SELECT u.cluster_key, 1, 1, u.status, u.assignee_id, u.dismiss_reason, u.tags, u.version, now()
    FROM unified u
    ON CONFLICT (cluster_key) DO UPDATE SET
        status = EXCLUDED.status, assignee_id = EXCLUDED.assignee_id, dismiss_reason = EXCLUDED.dismiss_reason,
        tags = EXCLUDED.tags, version = EXCLUDED.version, updated_at = now()
    WHERE (cc.status, cc.assignee_id, cc.dismiss_reason, cc.tags, cc.version)
          IS DISTINCT FROM (EXCLUDED.status, EXCLUDED.assignee_id, EXCLUDED.dismiss_reason, EXCLUDED.tags, EXCLUDED.version)
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
