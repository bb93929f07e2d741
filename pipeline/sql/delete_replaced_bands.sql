-- The band keys of the run's claims whose signature changed, as they were stored.
DELETE FROM claim_bands b
USING (
    SELECT DISTINCT node, band
    FROM run_signature_changes CROSS JOIN LATERAL unnest(stored_bands) AS u(band)
    WHERE node IS NOT NULL
) old
WHERE b.band = old.band AND b.node = old.node
