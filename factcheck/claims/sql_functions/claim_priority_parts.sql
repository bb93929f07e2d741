-- A claim's standing priority as one jsonb row: every part in points rounded to 4 places and
-- `priority`, their sum (so claims separate: no rounding to whole points). Read with the
-- weights of ranking_weights' one row; without that row (a test flush empties the table) with
-- the defaults of factcheck.claims.ranking.priority.DEFAULT_RANKING_WEIGHTS, as version 0 (spliced in
-- as a literal where the default_weights placeholder stands: PostgreSQL takes no parameters
-- in DDL). Recency is not a part: the queue's stored order adds it (claim_queue_rank_at).
--
-- `priority` is the same sum as a number, for a caller that only compares claims (the choice of a
-- cluster's lead): inlined, the function then builds no jsonb for them.
--
-- A set-returning SQL function, called in FROM (CROSS JOIN LATERAL claim_priority_parts(...)):
-- PostgreSQL inlines it into the calling query, so the weights are read once per statement
-- and each claim costs a few expressions; as a scalar function reading a table it ran through
-- the SQL-function executor for every row. Called by the pipeline's merge
-- (pipeline/sql/refresh_*.sql) and the web app's re-rank.
CREATE OR REPLACE FUNCTION claim_priority_parts(
    score double precision, claim_type text, signals jsonb, outlets bigint
) RETURNS TABLE (parts jsonb, priority double precision) LANGUAGE sql STABLE PARALLEL SAFE ROWS 1 AS $fn$
SELECT jsonb_build_object(
    'contestability', contestability, 'checkworthiness', checkworthiness, 'public_interest', public_interest,
    'source', source, 'specificity', specificity, 'type', type, 'routine', routine, 'spread', spread,
    'outlets', outlets, 'topic', topic, 'weights_version', weights_version, 'priority', total),
    total::double precision
FROM (
SELECT *, round((contestability + checkworthiness + public_interest + source + specificity + type + routine + spread)::numeric, 4) AS total
FROM (
    SELECT
        round(w_contestability * COALESCE((signals ->> 'contestability')::float8, 0) * 10000) / 10000 AS contestability,
        round(w_checkworthiness * COALESCE(score, 0) * 10000) / 10000 AS checkworthiness,
        round(w_public_interest * COALESCE((signals ->> 'public_interest')::float8, 0) * 10000) / 10000 AS public_interest,
        round(w_source * COALESCE((signals ->> 'source')::float8, 0) * 10000) / 10000 AS source,
        round(w_specificity * COALESCE((signals ->> 'specificity')::float8, 0) * 10000) / 10000 AS specificity,
        round(COALESCE((w ->> ('type_' || claim_type))::float8, 0) * 10000) / 10000 AS type,
        round(w_routine * COALESCE((signals ->> 'routine')::float8, 0) * 10000) / 10000 AS routine,
        round(w_spread * least(1.0, ln(greatest(COALESCE(outlets, 1), 1)) / ln(8)) * 10000) / 10000 AS spread,
        COALESCE(outlets, 1) AS outlets,
        COALESCE(signals ->> 'topic', '') AS topic,
        weights_version
    FROM (
        -- The weights as numbers once per statement (OFFSET 0 keeps this subquery from being
        -- flattened into every row's expressions).
        SELECT w, weights_version,
               COALESCE((w ->> 'contestability')::float8, 0) AS w_contestability,
               COALESCE((w ->> 'checkworthiness')::float8, 0) AS w_checkworthiness,
               COALESCE((w ->> 'public_interest')::float8, 0) AS w_public_interest,
               COALESCE((w ->> 'source')::float8, 0) AS w_source,
               COALESCE((w ->> 'specificity')::float8, 0) AS w_specificity,
               COALESCE((w ->> 'routine')::float8, 0) AS w_routine,
               COALESCE((w ->> 'spread')::float8, 0) AS w_spread
        FROM (
            SELECT COALESCE((SELECT r.weights FROM ranking_weights r WHERE r.id = 1), %(default_weights)s::jsonb) AS w,
                   COALESCE((SELECT r.version FROM ranking_weights r WHERE r.id = 1), 0) AS weights_version
        ) stored
        OFFSET 0
    ) weights
) points
) summed
$fn$;
