-- The points (negative) a cluster loses when another wording of its figure ranks above it
-- (pipeline/stories_store.py, pipeline.nlp.stories): the weight "repeat" of ranking_weights'
-- one row, or the default. Applied by claims migration 0036.
CREATE OR REPLACE FUNCTION claim_repeat_weight() RETURNS double precision
LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
SELECT COALESCE((w ->> 'repeat')::float8, 0)
FROM (SELECT COALESCE((SELECT r.weights FROM ranking_weights r WHERE r.id = 1), %(default_weights)s::jsonb) AS w) stored
$fn$;
