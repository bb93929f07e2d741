-- Keep a freshly built matching index under its library key. A row already under the key
-- (a damaged one, or one a concurrent run just wrote for the same library) is replaced:
-- equal keys are equal libraries, so either copy is right.
INSERT INTO factcheck_match_indexes (key, data, entries, created_at)
VALUES (%(key)s, %(data)s, %(entries)s, now())
ON CONFLICT (key) DO UPDATE SET data = EXCLUDED.data, entries = EXCLUDED.entries, created_at = EXCLUDED.created_at
