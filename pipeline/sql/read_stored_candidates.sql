-- The stored claims behind candidate nodes, with their cluster key and signature (or, for a
-- claim without one, what to compute it from). The node expression must stay exactly the one
-- claim_node_idx indexes (claims migration 0009) for PostgreSQL to use the index.
SELECT c.claim_key, c.cluster_key, s.tokens,
       CASE WHEN s.claim_key IS NULL THEN c.sentence END,
       CASE WHEN s.claim_key IS NULL THEN c.quantities::text END
FROM claims c LEFT JOIN claim_signatures s ON s.claim_key = c.claim_key
WHERE (CASE WHEN c.claim_key ~ '^[0-9a-f]{15}' THEN ('x' || left(c.claim_key, 15))::bit(60)::bigint END) = ANY(%(nodes)s::bigint[])
