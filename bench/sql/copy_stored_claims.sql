-- Copies of the claims stored so far (the BBC corpus's, from one real run) until there are
-- the --stored count: copy n of a claim gets a new key (md5 of key and n: 32 hex digits, padded with
-- 8 more), its own cluster, and offsets moved past its article's text by n million, so
-- (article, span) stays unique. Every column a real claim has is copied.
INSERT INTO claims ({columns})
SELECT {copied}
FROM claims c CROSS JOIN generate_series(1, %(copies)s) AS n(copy)
ORDER BY n.copy, c.id
LIMIT %(missing)s
