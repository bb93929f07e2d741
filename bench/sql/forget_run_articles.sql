-- For --reuse: the claims of the measured articles (and their signatures, band keys and
-- clusters) are removed, so their runs are new again against what else is stored.
WITH gone AS (
    DELETE FROM claims WHERE article_id = ANY(%(articles)s) RETURNING claim_key, cluster_key
), signatures AS (
    DELETE FROM claim_signatures s USING gone g WHERE s.claim_key = g.claim_key RETURNING s.claim_key, s.bands
), bands AS (
    DELETE FROM claim_bands b USING signatures s CROSS JOIN LATERAL unnest(s.bands) AS u(band)
    WHERE b.band = u.band AND b.node = ('x' || left(s.claim_key, 15))::bit(60)::bigint
)
DELETE FROM claim_clusters cc USING gone g WHERE cc.cluster_key = g.cluster_key
