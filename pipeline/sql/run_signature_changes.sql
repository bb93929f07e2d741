-- The run's claims whose signature (tokens, band keys) is new or differs from the stored one:
-- what claim_signatures must take.
CREATE TEMP TABLE run_signature_changes ON COMMIT DROP AS
SELECT r.claim_key, r.tokens, r.bands
FROM run_staged r
LEFT JOIN claim_signatures s ON s.claim_key = r.claim_key
WHERE s.claim_key IS NULL OR (s.tokens, s.bands) IS DISTINCT FROM (r.tokens, r.bands)
