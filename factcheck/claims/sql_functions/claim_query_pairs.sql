-- The pairs every match of a query must hold: its lexemes joined by <-> in a chain of ANDed
-- phrases. None (an empty array) for a query with OR, NOT or grouping (a match need not hold
-- them all), and none across <N> (words a stop word apart: "flood the zone" is
-- 'flood' <2> 'zone', a pair of positions two apart, which no pair records).
-- A query's text lists lexemes in quotes (a quote or backslash inside doubled) and operators
-- between them; <-> binds tighter than &, so without parentheses the text is a chain of
-- phrases joined by &, and every pair of lexemes joined by <-> must stand side by side in a match.
-- A lexeme with a suffix (a prefix match, 'deport':*, or weights) names no one lexeme: no pair.
CREATE OR REPLACE FUNCTION claim_query_pairs(query tsquery) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    token text[];
    lexeme text;
    previous text;
    adjacent boolean := false;
    pairs text[] := '{}';
BEGIN
    IF regexp_replace(query::text, $re$'(?:[^'\\]|''|\\.)*'$re$, '', 'g') ~ '[|!(]' THEN
        RETURN '{}';
    END IF;
    FOR token IN SELECT regexp_matches(query::text, $re$('((?:[^'\\]|''|\\.)*)'(:[*A-D]+)?|<->|<[0-9]+>|&)$re$, 'g') LOOP
        IF token[2] IS NULL THEN
            adjacent := token[1] = '<->';
            CONTINUE;
        END IF;
        lexeme := CASE WHEN token[3] IS NULL THEN regexp_replace(token[2], $re$['\\](.)$re$, '\1', 'g') END;
        IF adjacent AND previous IS NOT NULL AND lexeme IS NOT NULL THEN
            pairs := pairs || (previous || ' ' || lexeme);
        END IF;
        previous := lexeme;
        adjacent := false;
    END LOOP;
    RETURN pairs;
END
$fn$;
