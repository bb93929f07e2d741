-- Whether any claim's own text has a search's words, asked of the search index. Written as a
-- plain EXISTS, PostgreSQL plans a sequential scan expected to stop at the first match, which
-- for a word no claim has reads every claim; with sequential scans off the search index
-- answers at once for an absent word and with one posting list for a present one.
CREATE OR REPLACE FUNCTION claim_text_has_words(words tsquery) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET enable_seqscan = off
AS $fn$
SELECT EXISTS (SELECT FROM claims WHERE search @@ words)
$fn$;
