-- A claim's full-text search vector: its sentence and its speaker, in English. The one
-- definition of claims.search (kept by claims_fill_search) and of claim_staging.search
-- (computed as the pipeline's tasks COPY their claims); claims.phrase_pairs and
-- claim_staging.phrase_pairs are claim_word_pairs of it.
CREATE OR REPLACE FUNCTION claim_search_vector(sentence text, speaker text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$
SELECT to_tsvector('english'::regconfig, (COALESCE(sentence, '') || ' ') || COALESCE(speaker, ''))
$fn$;
