-- The newest seen_at stored and the current recency weight and half-life (the one row of
-- ranking_weights, or the defaults claim_priority_parts also falls back to, spliced in where
-- the default_weights placeholder stands), in one place that every reader of the queue order
-- calls once per statement.
CREATE OR REPLACE FUNCTION claim_queue_ranking()
RETURNS TABLE (newest timestamptz, recency double precision, half_life_days double precision)
LANGUAGE sql STABLE PARALLEL SAFE ROWS 1 AS $fn$
SELECT (SELECT max(seen_at) FROM claims),
       COALESCE((w ->> 'recency')::float8, 0),
       COALESCE((w ->> 'recency_half_life_days')::float8, 7)
FROM (SELECT COALESCE((SELECT r.weights FROM ranking_weights r WHERE r.id = 1), %(default_weights)s::jsonb) AS w) stored
$fn$;
