-- The stored claims that share a MinHash band key with a claim this run staged, one row per
-- (node, band key): a join of the run's keys against claim_bands' b-tree (claims migration
-- 0016), so a run reads what its own claims can match, not every stored signature. A stored
-- claim the run extracted again is left out: the run's own row for it carries its bands.
WITH run_claims AS (
    SELECT DISTINCT ('x' || left(claim_key, 15))::bit(60)::bigint AS node, bands
    FROM claim_staging
    WHERE run_id = %(run_id)s AND claim_key ~ '^[0-9a-f]{15}'
), run_bands AS (
    SELECT DISTINCT band FROM run_claims CROSS JOIN LATERAL unnest(bands) AS u(band)
)
SELECT b.node, b.band
FROM run_bands r
JOIN claim_bands b ON b.band = r.band
WHERE b.node NOT IN (SELECT node FROM run_claims)
