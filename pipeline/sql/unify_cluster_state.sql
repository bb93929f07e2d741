-- The cluster is the unit of triage (factcheck.claims.models.Claim): every appearance of a
-- cluster carries the same reviewer state (status, assignee, tags, dismiss reason, version).
-- Once the run's claims are in their final clusters, each cluster of %(cluster_keys)s (those the
-- run touched) whose appearances differ takes one state:
--   * appearances nobody worked on (a new one the merge inserted as new, unassigned,
--     untagged; or a stored one never touched) take the state of the rest of the cluster at
--     its version: nothing changed for whoever has those open, so no page goes stale, and a
--     new appearance of an approved claim shows it approved;
--   * two clusters that both carry reviewers' work, now one, take the most advanced status
--     (approved, drafted, returned, in research, check it, dismissed, new) with its assignee
--     and dismiss reason, every tag of both, and a version above both (a page open on either
--     side is refused and reloads), with an audit row "cluster.merge" on the cluster's first
--     appearance that names the clusters and the states it unified.
-- Notes, evidence, verdicts and audit rows are never touched: they stay on the appearance
-- they were written on and the web app reads them for the whole cluster, so a merge loses
-- none. %(run_id)s names the run whose remaps merged the clusters (none: the migration that
-- first unified the stored clusters).
WITH members AS MATERIALIZED (
    SELECT c.id, c.cluster_key, c.status, c.assignee_id, c.tags, c.dismiss_reason, c.version,
           (c.status = 'new' AND c.assignee_id IS NULL AND c.tags = '{}' AND c.dismiss_reason = '') AS untouched,
           CASE c.status WHEN 'approved' THEN 6 WHEN 'drafted' THEN 5 WHEN 'returned' THEN 4 WHEN 'in_research' THEN 3
                         WHEN 'check' THEN 2 WHEN 'dismissed' THEN 1 ELSE 0 END AS advance
    FROM claims c
    WHERE c.cluster_key = ANY(%(cluster_keys)s::text[]) AND c.cluster_key <> ''
), differing AS (
    SELECT cluster_key, max(version) AS top_version, min(id) AS first_id,
           count(DISTINCT (status, assignee_id, tags, dismiss_reason)) FILTER (WHERE NOT untouched) AS worked_states,
           jsonb_agg(DISTINCT jsonb_build_object('status', status, 'assignee_id', assignee_id, 'tags', tags, 'version', version))
               FILTER (WHERE NOT untouched) AS states
    FROM members
    GROUP BY cluster_key
    HAVING count(DISTINCT (status, assignee_id, tags, dismiss_reason, version)) > 1
), winner AS (
    SELECT DISTINCT ON (m.cluster_key) m.cluster_key, m.status, m.assignee_id, m.dismiss_reason, m.tags
    FROM members m JOIN differing d ON d.cluster_key = m.cluster_key
    ORDER BY m.cluster_key, m.advance DESC, m.untouched, m.version DESC, m.id
), unified AS (
    SELECT d.cluster_key, d.first_id, d.states, d.worked_states, w.status, w.assignee_id, w.dismiss_reason,
           -- The winner's tags in their order, then every other appearance's.
           w.tags || ARRAY(SELECT DISTINCT t FROM members m CROSS JOIN LATERAL unnest(m.tags) AS u(t)
                           WHERE m.cluster_key = d.cluster_key AND t <> ALL (w.tags) ORDER BY t)::varchar(40)[] AS tags,
           d.top_version + (d.worked_states > 1)::int AS version
    FROM differing d JOIN winner w ON w.cluster_key = d.cluster_key
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
WHERE u.worked_states > 1
