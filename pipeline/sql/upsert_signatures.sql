-- The run's new and changed signatures, for the exact step of later runs (read_stored_candidates.sql).
INSERT INTO claim_signatures (claim_key, tokens, bands)
SELECT claim_key, tokens, bands FROM run_signature_changes
ON CONFLICT (claim_key) DO UPDATE SET tokens = EXCLUDED.tokens, bands = EXCLUDED.bands
