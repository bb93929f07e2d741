-- Recency points: `weight` for a claim seen at `newest`, halving every `half_life_days`
-- before it; the exponent capped so that a very old claim gets 0, not a float underflow.
-- IMMUTABLE and a single expression, with the weights passed in (read once per query by the
-- caller): PostgreSQL inlines it into the calling query's ORDER BY. Double precision
-- throughout: extract(epoch ...) gives numeric, and converting it cost most of its time.
CREATE OR REPLACE FUNCTION claim_recency_points(
    seen_at timestamptz, newest timestamptz, weight double precision, half_life_days double precision
) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT round(COALESCE(weight, 0) * power(0.5::float8, least(1000.0::float8,
    greatest(0::float8, date_part('epoch', COALESCE(newest, seen_at) - COALESCE(seen_at, newest)))
        / 86400.0::float8 / greatest(COALESCE(half_life_days, 7), 0.001::float8))) * 10000) / 10000
$fn$;
