-- The run's claims as the merge takes them: one row per claim key (a retried Spark task may
-- have staged a claim twice) with its final cluster key. The clustering assigned one to each
-- claim it joined to others; every other claim keeps its stored cluster (every stored claim
-- is in one: claim_cluster_key_set), or a new one forms its own under its own key; a stored
-- cluster the clustering merged into another moves to the surviving key.
-- stored_cluster_key: the cluster the claim is stored under, if stored.
-- id: the stored claim's id, or the one a new claim will be inserted with, taken from the
-- claims' sequence here so the merge can name a new claim as its cluster's lead and write its
-- final priority in the one insert (merge_claims.sql), instead of updating it afterwards.
CREATE TEMP TABLE run_staged ON COMMIT DROP AS
WITH staged AS (
    SELECT DISTINCT ON (claim_key) *
    FROM claim_staging
    WHERE run_id = %(run_id)s
    ORDER BY claim_key
), remap AS (
    SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s AND old_key <> new_key
), keyed AS (
    SELECT s.*, c.id AS stored_id, c.cluster_key AS stored_cluster_key,
           COALESCE(a.cluster_key, c.cluster_key, s.claim_key) AS own_cluster_key
    FROM staged s
    LEFT JOIN claim_cluster_assignments a ON a.run_id = s.run_id AND a.claim_key = s.claim_key
    LEFT JOIN claims c ON c.claim_key = s.claim_key
)
SELECT k.*, COALESCE(k.stored_id, nextval(pg_get_serial_sequence('claims', 'id'))) AS id,
       COALESCE(r.new_key, k.own_cluster_key) AS cluster_key,
       CASE WHEN k.claim_key ~ '^[0-9a-f]{15}' THEN ('x' || left(k.claim_key, 15))::bit(60)::bigint END AS node
FROM keyed k LEFT JOIN remap r ON r.old_key = k.own_cluster_key
