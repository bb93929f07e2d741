-- The queue's stored order: claims.queue_rank = the standing priority plus the recency points
-- of the day the claim was seen, counted back from the order's day (claim_queue_order_basis).
-- Rounded to the day, every claim's rank stays put until the day turns (or the recency
-- weights change); then factcheck.claims.services.queue_order_refresh moves the basis and
-- rewrites the ranks that differ, under the merge's lock. Between refreshes, the trigger
-- below ranks each inserted claim, and each changed priority or seen_at, against the same basis.
-- Applied by claims migration 0029.

-- The rank itself: IMMUTABLE and one expression, so PostgreSQL inlines it where it is read.
-- A claim with no seen_at counts as seen on the basis day (the whole weight), as before.
CREATE OR REPLACE FUNCTION claim_queue_rank_at(
    priority double precision, seen_at timestamptz, day integer, weight double precision, half_life_days double precision
) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT COALESCE(priority, 0) + round(COALESCE(weight, 0) * power(0.5::float8, least(1000.0::float8,
    greatest(0, day - COALESCE(claim_seen_day(seen_at), day))::float8 / greatest(COALESCE(half_life_days, 7), 0.001::float8)))
    * 10000) / 10000
$fn$;

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

CREATE OR REPLACE FUNCTION claims_set_queue_rank() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    SELECT claim_queue_rank_at(NEW.priority, NEW.seen_at, b.day, b.weight, b.half_life_days)
      INTO NEW.queue_rank FROM claim_queue_basis() b;
    RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS claims_queue_rank ON claims;
CREATE TRIGGER claims_queue_rank BEFORE INSERT OR UPDATE OF priority, seen_at ON claims
FOR EACH ROW EXECUTE FUNCTION claims_set_queue_rank();
