-- One id bucket of a run's articles, as the extraction takes them (pipeline.schemas.ARTICLE_SCHEMA).
SELECT a.id, a.content_hash, a.text, COALESCE(o.name, ''), a.author
FROM pipeline_run_articles ra
JOIN articles a ON a.id = ra.article_id
LEFT JOIN outlets o ON o.id = a.outlet_id
WHERE ra.run_id = %(run_id)s AND mod(a.id, %(buckets)s) = %(bucket)s
ORDER BY a.id
