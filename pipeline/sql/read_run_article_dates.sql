-- When each article of a run was published (a date, UTC), for the matching's date features:
-- a claim is compared with fact-checks published near the article that made it.
SELECT a.id, (a.published_at AT TIME ZONE 'UTC')::date
FROM pipeline_run_articles AS ra
JOIN articles AS a ON a.id = ra.article_id
WHERE ra.run_id = %(run_id)s AND a.published_at IS NOT NULL
