-- The article metadata the queue's filter bar offers: each (key, value) of the scalar values
-- imported with the articles (a JSON field or CSV column beyond the known ones: BBC's
-- category), with how many articles hold it, for the keys that group articles: at most
-- max_values distinct values, one of them held by two articles or more. A key with more
-- values, or none shared (an id, a URL, a file name), names single articles, not a group
-- worth a filter; the `meta` parameter still filters by it when typed into a URL.
--
-- Why one pass over the articles: jsonb_each reads each article's metadata once, and the
-- grouping happens in PostgreSQL, so only the offered pairs leave the database. The caller
-- caches the answer (selectors.article_metadata_values).
WITH pairs AS (
    SELECT entry.key, entry.value #>> '{}' AS value, count(*) AS articles
    FROM articles CROSS JOIN LATERAL jsonb_each(articles.metadata) AS entry
    WHERE jsonb_typeof(entry.value) IN ('string', 'number', 'boolean')
      AND length(entry.value #>> '{}') BETWEEN 1 AND %(max_length)s
      AND length(entry.key) <= %(max_length)s
    GROUP BY entry.key, entry.value #>> '{}'
),
keys AS (
    SELECT key FROM pairs GROUP BY key HAVING count(*) <= %(max_values)s AND max(articles) > 1
)
SELECT pairs.key, pairs.value, pairs.articles
FROM pairs JOIN keys ON keys.key = pairs.key
ORDER BY pairs.key, pairs.value
