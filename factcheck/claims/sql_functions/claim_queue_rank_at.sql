-- The queue's stored order: claims.queue_rank = the standing priority plus the recency points
-- of the day the claim was seen, counted back from the order's day (claim_queue_order_basis).
-- Rounded to the day, every claim's rank stays put until the day turns (or the recency
-- weights change); then factcheck.claims.ranking.services.queue_order_refresh moves the basis and
-- rewrites the ranks that differ, under the merge's lock. Between refreshes, the trigger
-- below ranks each inserted claim, and each changed priority or seen_at, against the same basis.
-- Applied by claims migration 0031.

-- The rank itself: IMMUTABLE and one expression, so PostgreSQL inlines it where it is read.
-- A claim with no seen_at counts as seen on the basis day (the whole weight), as before.
CREATE OR REPLACE FUNCTION claim_queue_rank_at(
    priority double precision, seen_at timestamptz, day integer, weight double precision, half_life_days double precision
) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT COALESCE(priority, 0) + round(COALESCE(weight, 0) * power(0.5::float8, least(1000.0::float8,
    greatest(0, day - COALESCE(claim_seen_day(seen_at), day))::float8 / greatest(COALESCE(half_life_days, 7), 0.001::float8)))
    * 10000) / 10000
$fn$;
