-- The band keys of the run's new and changed signatures, for later runs to look up
-- (read_stored_memberships.sql). A claim whose key is not hex has no node and no bands.
INSERT INTO claim_bands (band, node)
SELECT DISTINCT band, node
FROM run_signature_changes CROSS JOIN LATERAL unnest(bands) AS u(band)
WHERE node IS NOT NULL
-- In the b-tree's order: each leaf page is visited once, in turn.
ORDER BY band, node
ON CONFLICT DO NOTHING
