-- The clusters of %(cluster_keys)s that a run emptied (every member moved to another).
DELETE FROM claim_clusters cc
WHERE cc.cluster_key = ANY(%(cluster_keys)s::text[])
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.cluster_key = cc.cluster_key)
