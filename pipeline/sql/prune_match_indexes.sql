-- After a write: only the newest few indexes stay. An older library state is not read again
-- (its key is gone once the library changed); keeping two spares two runs that overlap a
-- library change from rebuilding each other's index in turn.
DELETE FROM factcheck_match_indexes
WHERE key NOT IN (SELECT key FROM factcheck_match_indexes ORDER BY created_at DESC, key LIMIT %(keep)s)
