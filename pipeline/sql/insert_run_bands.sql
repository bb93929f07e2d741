-- The band keys of the run's staged claims, for later runs to look up (read_stored_memberships.sql).
-- After delete_replaced_bands.sql, on the band keys' own connection while the merge's
-- transaction runs (pipeline.db.merge_with_bands), committed before the merge: a band whose
-- claim is not stored (the merge failed after) names a node no reader finds, since every
-- reader reaches claims through `claims` (read_stored_candidates.sql), and the run's retry
-- writes the same rows again. A claim whose key is not hex has no node and no bands.
INSERT INTO claim_bands (band, node)
SELECT DISTINCT u.band, ('x' || left(s.claim_key, 15))::bit(60)::bigint
FROM claim_staging s CROSS JOIN LATERAL unnest(s.bands) AS u(band)
WHERE s.run_id = %(run_id)s AND s.claim_key ~ '^[0-9a-f]{15}'
-- In the b-tree's order: each leaf page is visited once, in turn.
ORDER BY 1, 2
ON CONFLICT DO NOTHING
