-- The UTC day a claim was seen, as days since 1970-01-01. IMMUTABLE (a UTC date does not
-- depend on the session's time zone), so claim_queue_day_idx can index it.
CREATE OR REPLACE FUNCTION claim_seen_day(seen_at timestamptz) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT (seen_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01'
$fn$;
