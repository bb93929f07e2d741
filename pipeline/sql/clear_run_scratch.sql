-- Everything a run wrote before its merge (staged claims, the clustering's assignments and
-- remaps), in one statement: a failed attempt's rows, or a finished merge's. Data-modifying
-- WITH clauses run whether or not anything reads them.
WITH staged AS (
    DELETE FROM claim_staging WHERE run_id = %(run_id)s
), assigned AS (
    DELETE FROM claim_cluster_assignments WHERE run_id = %(run_id)s
)
DELETE FROM claim_cluster_remap WHERE run_id = %(run_id)s
