-- Count one login attempt against each of its throttle keys and return the counts, in one
-- statement. Each key's row is locked by its upsert, so parallel attempts are counted one
-- after another: exactly `limit` of them see a count within the limit, where a read followed
-- by a write let 9 of 24 parallel guesses through. Keys are taken in sorted order so two
-- attempts sharing an address lock its row in the same order (no deadlock). A window that
-- has passed starts again at 1.
INSERT INTO login_throttles AS t (key, attempts, expires_at)
SELECT key, 1, now() + make_interval(secs => %(window)s)
FROM unnest(%(keys)s::text[]) AS key
ORDER BY key
ON CONFLICT (key) DO UPDATE SET
    attempts = CASE WHEN t.expires_at <= now() THEN 1 ELSE t.attempts + 1 END,
    expires_at = CASE WHEN t.expires_at <= now() THEN EXCLUDED.expires_at ELSE t.expires_at END
RETURNING key, attempts
