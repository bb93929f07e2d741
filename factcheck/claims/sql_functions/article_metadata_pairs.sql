-- An article's metadata as the key/value pairs the queue's metadata filter asks for (the
-- expression of the generated column articles.metadata_pairs), each written as the one-key
-- JSON object it forms ('{"category": "politics"}'), so that a key and a value can hold any
-- character and a string is never taken for a number. A number is written without trailing
-- zeros: 2004.0 and 2004 are one value, as jsonb compares them. Nested values and nulls are
-- left out (the filter asks for strings, numbers and booleans only), and so is a pair too
-- long for the index to hold: the filter takes pairs of at most 300 characters, under 2,000
-- bytes however they are written. PostgreSQL keeps statistics on the elements of an array
-- column, so it can tell how many articles hold a pair (it cannot for a jsonb containment).
CREATE OR REPLACE FUNCTION article_metadata_pairs(metadata jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
SELECT coalesce(array_agg(pair ORDER BY pair), '{}')
FROM (
    SELECT jsonb_build_object(key, CASE WHEN jsonb_typeof(value) = 'number' THEN to_jsonb(trim_scale(value::numeric)) ELSE value END)::text AS pair
    FROM jsonb_each(CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata ELSE '{}' END)
    WHERE jsonb_typeof(value) IN ('string', 'number', 'boolean')
) pairs
WHERE octet_length(pair) <= 2000
$fn$;
