-- The copies' band keys in claim_bands (claims migration 0016), from their signatures.
INSERT INTO claim_bands (band, node)
SELECT DISTINCT u.band, ('x' || left(s.claim_key, 15))::bit(60)::bigint
FROM claim_signatures s CROSS JOIN LATERAL unnest(s.bands) AS u(band)
JOIN claims c ON c.claim_key = s.claim_key
WHERE c.start_offset >= 1000000
ON CONFLICT DO NOTHING
