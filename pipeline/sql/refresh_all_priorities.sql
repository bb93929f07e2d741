-- Every claim's standing priority (claim_priority_parts, factcheck/claims/sql_functions/) with the
-- current weights, from its cluster's lead appearance as refresh_cluster_priorities.sql
-- takes it: the web app's re-rank after a change of weights
-- (factcheck.claims.ranking.services.claims_rerank), and a merge that finds the weights changed since
-- the stored priorities were computed (a re-rank that never ran). Only rows whose priority
-- or parts differ are written.
WITH p AS (
    SELECT c.id, pp.parts || jsonb_build_object('lead_claim_id', COALESCE(lead.id, c.id)) AS parts
    FROM claims c
    LEFT JOIN claim_clusters cc ON cc.cluster_key = c.cluster_key
    LEFT JOIN claims lead ON lead.id = cc.lead_claim_id
    CROSS JOIN LATERAL claim_priority_parts(
        COALESCE(lead.score, c.score), COALESCE(lead.claim_type, c.claim_type), COALESCE(lead.rank_signals, c.rank_signals), cc.outlet_count
    ) pp
)
UPDATE claims c SET priority = (p.parts ->> 'priority')::double precision, priority_parts = p.parts - 'priority'
FROM p
WHERE c.id = p.id
  AND (c.priority, c.priority_parts) IS DISTINCT FROM ((p.parts ->> 'priority')::double precision, p.parts - 'priority')
