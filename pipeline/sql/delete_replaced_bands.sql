-- The band keys that a signature the run changes no longer has, as they were stored: each
-- staged claim's stored signature against the one it staged. Run with insert_run_bands.sql on
-- the band keys' own connection (pipeline.db.merge_with_bands), which alone writes
-- claim_bands; claim_signatures is the merge's to change, and this statement's snapshot holds
-- the stored signatures.
DELETE FROM claim_bands b
USING (
    SELECT DISTINCT ('x' || left(s.claim_key, 15))::bit(60)::bigint AS node, u.band
    FROM claim_staging s
    JOIN claim_signatures g ON g.claim_key = s.claim_key
    CROSS JOIN LATERAL unnest(g.bands) AS u(band)
    WHERE s.run_id = %(run_id)s AND s.claim_key ~ '^[0-9a-f]{15}' AND NOT u.band = ANY(s.bands)
) old
WHERE b.band = old.band AND b.node = old.node
