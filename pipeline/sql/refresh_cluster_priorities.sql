-- The standing priority (claim_priority_parts, factcheck/claims/sql_functions/) of every member of the
-- clusters in %(cluster_keys)s (those a run or a split touched): their outlet counts and
-- leads may have moved. One claim, one
-- score: every appearance takes the parts of its cluster's lead appearance
-- (claim_clusters.lead_claim_id, refresh_clusters.sql), so the cluster ranks the same
-- whichever outlet's wording the pipeline read; a claim whose cluster has no row yet (written
-- outside the pipeline, before its statistics) ranks on its own.
-- Only rows whose priority or parts differ are written.
WITH p AS (
    SELECT c.id, pp.parts || jsonb_build_object('lead_claim_id', COALESCE(lead.id, c.id)) AS parts
    FROM claims c
    LEFT JOIN claim_clusters cc ON cc.cluster_key = c.cluster_key
    LEFT JOIN claims lead ON lead.id = cc.lead_claim_id
    CROSS JOIN LATERAL claim_priority_parts(
        COALESCE(lead.score, c.score), COALESCE(lead.claim_type, c.claim_type), COALESCE(lead.rank_signals, c.rank_signals), cc.outlet_count
    ) pp
    WHERE c.cluster_key = ANY(%(cluster_keys)s::text[])
)
UPDATE claims c SET priority = (p.parts ->> 'priority')::double precision, priority_parts = p.parts - 'priority'
FROM p
WHERE c.id = p.id
  AND (c.priority, c.priority_parts) IS DISTINCT FROM ((p.parts ->> 'priority')::double precision, p.parts - 'priority')
