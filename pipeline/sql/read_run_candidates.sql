-- This run's staged claims behind candidate nodes, with the tokens it extracted (a retried
-- Spark task may have staged a claim twice). The node expression is claim_node's
-- (pipeline.nlp.clustering), as in claims migration 0009.
SELECT DISTINCT ON (claim_key) claim_key, tokens
FROM claim_staging
WHERE run_id = %(run_id)s
  AND (CASE WHEN claim_key ~ '^[0-9a-f]{15}' THEN ('x' || left(claim_key, 15))::bit(60)::bigint END) = ANY(%(nodes)s::bigint[])
ORDER BY claim_key
