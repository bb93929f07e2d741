-- The reviewers' splits (claim_cluster_splits) that concern the candidate claims' stored
-- clusters, as pairs of cluster keys that must stay apart: the split appearance's cluster now
-- and the cluster it was split from (kept current through merges by apply_cluster_remap.sql).
-- The table holds one row per split a reviewer made: small, read whole if need be.
SELECT c.cluster_key, s.apart_cluster_key
FROM claim_cluster_splits s
JOIN claims c ON c.claim_key = s.claim_key
WHERE c.cluster_key = ANY(%(clusters)s) OR s.apart_cluster_key = ANY(%(clusters)s)
