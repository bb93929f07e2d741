-- Appearances, distinct outlets (an article with no known outlet counts as its own), the
-- first appearance and the lead appearance of each cluster in %(cluster_keys)s (the clusters a
-- run touched, pipeline/sql/run_touched.sql; the two sides of a split; every cluster for a
-- re-rank); a row is written only where they differ. The lead is the appearance whose own standing parts rank highest
-- (claim_priority_parts of its own score, type and signals; ties to the smallest id): its
-- parts rank every appearance (refresh_cluster_priorities.sql).
WITH stats AS (
    SELECT c.cluster_key,
           count(*) AS size,
           count(DISTINCT COALESCE('outlet:' || a.outlet_id, 'article:' || a.id)) AS outlet_count,
           (array_agg(c.id ORDER BY COALESCE(a.published_at, a.created_at), c.id))[1] AS first_claim_id,
           min(COALESCE(a.published_at, a.created_at)) AS first_seen_at,
           (array_agg(c.id ORDER BY own.priority DESC, c.id))[1] AS lead_claim_id
    FROM claims c
    JOIN articles a ON a.id = c.article_id
    CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.rank_signals, 1) own
    WHERE c.cluster_key = ANY(%(cluster_keys)s::text[])
    GROUP BY c.cluster_key
)
INSERT INTO claim_clusters (cluster_key, size, outlet_count, first_claim_id, first_seen_at, lead_claim_id, updated_at)
SELECT cluster_key, size, outlet_count, first_claim_id, first_seen_at, lead_claim_id, now() FROM stats
ON CONFLICT (cluster_key) DO UPDATE SET
    size = EXCLUDED.size, outlet_count = EXCLUDED.outlet_count,
    first_claim_id = EXCLUDED.first_claim_id, first_seen_at = EXCLUDED.first_seen_at,
    lead_claim_id = EXCLUDED.lead_claim_id, updated_at = now()
WHERE (claim_clusters.size, claim_clusters.outlet_count, claim_clusters.first_claim_id, claim_clusters.first_seen_at,
       claim_clusters.lead_claim_id)
    IS DISTINCT FROM (EXCLUDED.size, EXCLUDED.outlet_count, EXCLUDED.first_claim_id, EXCLUDED.first_seen_at,
       EXCLUDED.lead_claim_id)
