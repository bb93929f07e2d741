-- The copies' clusters of one (copy_stored_claims.sql): every claim is in a cluster, and
-- claims.cluster_key references its row. The reviewer state takes its defaults: new work.
INSERT INTO claim_clusters (cluster_key, size, outlet_count, first_claim_id, first_seen_at, lead_claim_id, updated_at)
SELECT c.cluster_key, 1, 1, c.id, c.seen_at, c.id, now()
FROM claims c
WHERE NOT EXISTS (SELECT 1 FROM claim_clusters cc WHERE cc.cluster_key = c.cluster_key)
