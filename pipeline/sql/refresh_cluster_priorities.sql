-- The standing priority (claim_priority_parts, claims migration 0015) of every member of the
-- clusters the run touched: their outlet counts may have moved. Only rows whose priority or
-- parts differ are written.
WITH p AS (
    SELECT c.id, pp.parts
    FROM claims c
    LEFT JOIN claim_clusters cc ON cc.cluster_key = c.cluster_key
    CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.rank_signals, cc.outlet_count) pp
    WHERE c.cluster_key IN (SELECT cluster_key FROM run_touched)
)
UPDATE claims c SET priority = (p.parts ->> 'priority')::double precision, priority_parts = p.parts - 'priority'
FROM p
WHERE c.id = p.id
  AND (c.priority, c.priority_parts) IS DISTINCT FROM ((p.parts ->> 'priority')::double precision, p.parts - 'priority')
