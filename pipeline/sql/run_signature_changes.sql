-- The run's claims whose signature (tokens, band keys) is new or differs from the stored one,
-- with the stored band keys they replace: what claim_signatures and claim_bands must take.
CREATE TEMP TABLE run_signature_changes ON COMMIT DROP AS
SELECT r.claim_key, r.node, r.tokens, r.bands, s.bands AS stored_bands
FROM run_staged r
LEFT JOIN claim_signatures s ON s.claim_key = r.claim_key
WHERE s.claim_key IS NULL OR (s.tokens, s.bands) IS DISTINCT FROM (r.tokens, r.bands)
