-- Each copied claim's signature: the original's tokens, and band keys that are the
-- original's mixed with the copy number, so copies are distinct claims (as real stored claims
-- are) and share no band with each other or with new articles' claims. The copy number is
-- recovered from the start offset's millions.
INSERT INTO claim_signatures (claim_key, tokens, bands)
SELECT c.claim_key, s.tokens, ARRAY(SELECT b # ((c.start_offset / 1000000)::bigint << 40) FROM unnest(s.bands) AS u(b))
FROM claims c
JOIN claims o ON o.article_id = c.article_id AND o.start_offset = c.start_offset % 1000000 AND o.end_offset = c.end_offset - (c.start_offset / 1000000) * 1000000
JOIN claim_signatures s ON s.claim_key = o.claim_key
WHERE c.start_offset >= 1000000
