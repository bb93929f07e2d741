-- Every claim's standing priority (claim_priority_parts, claims migration 0015) with the
-- current weights: the web app's re-rank after a change of weights
-- (factcheck.claims.services.claims_rerank), and a merge that finds the weights changed since
-- the stored priorities were computed (a re-rank that never ran). Only rows whose priority
-- or parts differ are written.
WITH p AS (
    SELECT c.id, pp.parts
    FROM claims c
    LEFT JOIN claim_clusters cc ON cc.cluster_key = c.cluster_key
    CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.rank_signals, cc.outlet_count) pp
)
UPDATE claims c SET priority = (p.parts ->> 'priority')::double precision, priority_parts = p.parts - 'priority'
FROM p
WHERE c.id = p.id
  AND (c.priority, c.priority_parts) IS DISTINCT FROM ((p.parts ->> 'priority')::double precision, p.parts - 'priority')
