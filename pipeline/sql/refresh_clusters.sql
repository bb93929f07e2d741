-- Appearances, distinct outlets (an article with no known outlet counts as its own) and the
-- first appearance of each cluster the run touched; a row is written only where they differ.
WITH stats AS (
    SELECT c.cluster_key,
           count(*) AS size,
           count(DISTINCT COALESCE('outlet:' || a.outlet_id, 'article:' || a.id)) AS outlet_count,
           (array_agg(c.id ORDER BY COALESCE(a.published_at, a.created_at), c.id))[1] AS first_claim_id,
           min(COALESCE(a.published_at, a.created_at)) AS first_seen_at
    FROM claims c JOIN articles a ON a.id = c.article_id
    WHERE c.cluster_key IN (SELECT cluster_key FROM run_touched)
    GROUP BY c.cluster_key
)
INSERT INTO claim_clusters (cluster_key, size, outlet_count, first_claim_id, first_seen_at, updated_at)
SELECT cluster_key, size, outlet_count, first_claim_id, first_seen_at, now() FROM stats
ON CONFLICT (cluster_key) DO UPDATE SET
    size = EXCLUDED.size, outlet_count = EXCLUDED.outlet_count,
    first_claim_id = EXCLUDED.first_claim_id, first_seen_at = EXCLUDED.first_seen_at, updated_at = now()
WHERE (claim_clusters.size, claim_clusters.outlet_count, claim_clusters.first_claim_id, claim_clusters.first_seen_at)
    IS DISTINCT FROM (EXCLUDED.size, EXCLUDED.outlet_count, EXCLUDED.first_claim_id, EXCLUDED.first_seen_at)
