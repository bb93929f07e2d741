-- The pairs of lexemes at adjacent positions of a search vector ("deport boston"): the
-- expression of the generated column claims.phrase_pairs, whose GIN index names a phrase's
-- candidates without reading every claim that has its words.
CREATE OR REPLACE FUNCTION claim_word_pairs(vector tsvector) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
SELECT coalesce(array_agg(DISTINCT first.lexeme || ' ' || second.lexeme), '{}')
FROM (SELECT lexeme, unnest(positions) AS position FROM unnest(vector)) first
JOIN (SELECT lexeme, unnest(positions) AS position FROM unnest(vector)) second ON second.position = first.position + 1
$fn$;
