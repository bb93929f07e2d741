-- Suggested matches between claims and library fact-checks: the pipeline's sink and the web
-- app's matching of newly added fact-checks both write through this one statement.
-- One row per (claim, fact-check). A suggestion takes the newest score and rank; a reviewer's
-- decision (confirmed, rejected) is never overwritten. The joins drop pairs whose claim or
-- fact-check was deleted since they were read, instead of failing the whole batch on a
-- foreign key. Arrays in, so one round trip stores a whole batch.
INSERT INTO claim_matches (claim_id, factcheck_id, score, rank)
SELECT m.claim_id, m.factcheck_id, m.score, m.rank
FROM unnest(
    %(claim_ids)s::bigint[], %(factcheck_ids)s::bigint[], %(scores)s::double precision[], %(ranks)s::smallint[]
) AS m (claim_id, factcheck_id, score, rank)
JOIN claims AS c ON c.id = m.claim_id
JOIN factchecks AS f ON f.id = m.factcheck_id
ON CONFLICT (claim_id, factcheck_id) DO UPDATE
SET score = EXCLUDED.score, rank = EXCLUDED.rank, updated_at = now()
WHERE claim_matches.status = 'suggested'
  AND (claim_matches.score, claim_matches.rank) IS DISTINCT FROM (EXCLUDED.score, EXCLUDED.rank)
