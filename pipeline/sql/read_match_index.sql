-- The kept matching index of a library state (pipeline.match_library), by its key
-- (pipeline.nlp.matching.library_key): one row or none. Read on the driver, once per run.
SELECT data FROM factcheck_match_indexes WHERE key = %(key)s
