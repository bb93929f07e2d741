-- Clusters the run emptied (every member moved to another).
DELETE FROM claim_clusters cc
WHERE cc.cluster_key IN (SELECT cluster_key FROM run_touched)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.cluster_key = cc.cluster_key)
