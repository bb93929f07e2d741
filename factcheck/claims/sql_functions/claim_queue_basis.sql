-- The basis the stored ranks were computed with: the stored row, or (none yet: a new
-- database, or tables flushed) today's UTC day and the current weights.
CREATE OR REPLACE FUNCTION claim_queue_basis()
RETURNS TABLE (day integer, weight double precision, half_life_days double precision)
LANGUAGE sql STABLE PARALLEL SAFE ROWS 1 AS $fn$
SELECT b.day, b.weight, b.half_life_days FROM claim_queue_order_basis b WHERE b.id = 1
UNION ALL
SELECT claim_seen_day(now()), r.recency, r.half_life_days FROM claim_queue_weights() r
WHERE NOT EXISTS (SELECT FROM claim_queue_order_basis WHERE id = 1)
$fn$;
