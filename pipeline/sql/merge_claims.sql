-- One statement merges the run's claims into `claims`, each under its final cluster and with
-- its final standing priority: the parts claim_priority_parts gives its cluster's lead
-- appearance (the highest own priority, ties to the smallest id, as refresh_clusters.sql
-- picks it) with the cluster's outlets, counted from the run's claims and the stored members
-- of the clusters they join. So a new claim is written once: refresh_cluster_priorities.sql
-- finds the run's claims as it would set them and rewrites only stored members whose cluster
-- changed (every write of a claim updates all its indexes). Pipeline-owned columns are
-- updated only when they differ, so a re-run writes nothing. Reviewers' work is not here: it
-- is the cluster's (claim_clusters), and a claim joining a cluster has it. A row written
-- records the model version that scored the run (NULL: the run named none). A
-- new claim takes the id run_staged.sql took for it. Returns the ids written.
WITH remap AS (
    SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s AND old_key <> new_key
), run_clusters AS (
    SELECT cluster_key FROM run_staged UNION SELECT old_key FROM remap
), appearances AS MATERIALIZED (
    SELECT id, cluster_key, article_id, score, claim_type, rank_signals FROM run_staged
    UNION ALL
    -- The stored members of the run's clusters, found through claim_cluster_key_idx from the
    -- run's cluster keys: driven from the claims table with an IN filter, the planner read
    -- every stored claim. The run's own claims are counted from run_staged (an anti join
    -- against the run's few rows).
    SELECT c.id, COALESCE(r.new_key, c.cluster_key), c.article_id, c.score, c.claim_type, c.rank_signals
    FROM run_clusters k
    JOIN claims c ON c.cluster_key = k.cluster_key
    LEFT JOIN remap r ON r.old_key = c.cluster_key
    WHERE NOT EXISTS (SELECT 1 FROM run_staged s WHERE s.claim_key = c.claim_key)
), clusters AS (
    -- An appearance counts its outlet; an article with no known outlet counts as its own.
    SELECT m.cluster_key, count(DISTINCT COALESCE('outlet:' || a.outlet_id, 'article:' || a.id)) AS outlet_count,
           (array_agg(m.id ORDER BY own.priority DESC, m.id))[1] AS lead_id
    FROM appearances m
    JOIN articles a ON a.id = m.article_id
    CROSS JOIN LATERAL claim_priority_parts(m.score, m.claim_type, m.rank_signals, 1) own
    GROUP BY m.cluster_key
), standing AS (
    -- Each cluster's standing priority and parts (its lead's, with the cluster's outlets), built
    -- once a cluster: every appearance in it has the same, and building the jsonb (each part a
    -- number printed into it) is the costliest expression here. `priority` is the parts' sum as
    -- a number, as refresh_cluster_priorities.sql reads it back from them.
    SELECT k.cluster_key, (pp.parts - 'priority') || jsonb_build_object('lead_claim_id', lead.id) AS parts, pp.priority
    FROM clusters k
    JOIN appearances lead ON lead.id = k.lead_id
    CROSS JOIN LATERAL claim_priority_parts(lead.score, lead.claim_type, lead.rank_signals, k.outlet_count) pp
), p AS (
    SELECT s.*, st.parts, st.priority, COALESCE(a.published_at, a.created_at) AS seen_at
    FROM run_staged s
    JOIN articles a ON a.id = s.article_id
    JOIN standing st ON st.cluster_key = s.cluster_key
)
INSERT INTO claims (
    id, article_id, claim_key, sentence, start_offset, end_offset, score, claim_type, claim_types,
    quantities, speaker, speaker_title, attribution, rank_signals, context, cluster_key, priority, priority_parts,
    seen_at, queue_rank, model_version_id, first_run_id, last_run_id, created_at, updated_at, search, phrase_pairs
)
SELECT
    p.id, p.article_id, p.claim_key, p.sentence, p.start_offset, p.end_offset, p.score, p.claim_type,
    string_to_array(NULLIF(p.claim_types, ''), ','), p.quantities, p.speaker, p.speaker_title, p.attribution,
    p.rank_signals, p.context, p.cluster_key, p.priority, p.parts,
    p.seen_at,
    -- The rank the trigger would give it (claims migration 0038), the basis read once here.
    claim_queue_rank_at(p.priority, p.seen_at, b.day, b.weight, b.half_life_days),
    %(model_version_id)s::bigint, p.run_id, p.run_id, now(), now(),
    -- Computed by claim_staging as the tasks' COPY arrived (claims migration 0037); an update
    -- that changes the sentence or speaker has them computed again by claims_search_update.
    p.search, p.phrase_pairs
FROM p
CROSS JOIN claim_queue_basis() b
ORDER BY p.claim_key
ON CONFLICT (claim_key) DO UPDATE SET
    sentence = EXCLUDED.sentence,
    score = EXCLUDED.score,
    claim_type = EXCLUDED.claim_type,
    claim_types = EXCLUDED.claim_types,
    quantities = EXCLUDED.quantities,
    speaker = EXCLUDED.speaker,
    speaker_title = EXCLUDED.speaker_title,
    attribution = EXCLUDED.attribution,
    rank_signals = EXCLUDED.rank_signals,
    context = EXCLUDED.context,
    cluster_key = EXCLUDED.cluster_key,
    seen_at = EXCLUDED.seen_at,
    -- The version that scored what the row now holds.
    model_version_id = EXCLUDED.model_version_id,
    -- A claim whose score, type, signals or cluster changed is ranked anew with them; its
    -- priority alone never makes a row differ (refresh_cluster_priorities follows clusters).
    priority = EXCLUDED.priority,
    priority_parts = EXCLUDED.priority_parts,
    last_run_id = EXCLUDED.last_run_id,
    updated_at = now()
WHERE (claims.sentence, claims.score, claims.claim_type, claims.claim_types, claims.quantities,
       claims.speaker, claims.speaker_title, claims.attribution, claims.rank_signals, claims.context, claims.cluster_key)
    IS DISTINCT FROM (EXCLUDED.sentence, EXCLUDED.score, EXCLUDED.claim_type, EXCLUDED.claim_types,
       EXCLUDED.quantities, EXCLUDED.speaker, EXCLUDED.speaker_title, EXCLUDED.attribution, EXCLUDED.rank_signals,
       EXCLUDED.context, EXCLUDED.cluster_key)
    OR claims.seen_at IS DISTINCT FROM EXCLUDED.seen_at
RETURNING claims.id
