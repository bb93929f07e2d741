-- The recency weight and half-life now: the one row of ranking_weights, or the defaults.
CREATE OR REPLACE FUNCTION claim_queue_weights()
RETURNS TABLE (recency double precision, half_life_days double precision)
LANGUAGE sql STABLE PARALLEL SAFE ROWS 1 AS $fn$
SELECT COALESCE((w ->> 'recency')::float8, 0), COALESCE((w ->> 'recency_half_life_days')::float8, 7)
FROM (SELECT COALESCE((SELECT r.weights FROM ranking_weights r WHERE r.id = 1), %(default_weights)s::jsonb) AS w) stored
$fn$;
