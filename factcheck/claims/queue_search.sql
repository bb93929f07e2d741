-- One page of a search's first group: (id, recency, total, relevance, headline) of the claims
-- whose own sentence or speaker matches the search, after the cursor, in (relevance DESC,
-- total DESC, id DESC) order: the best matches first, the queue order among equals.
--
-- Why this shape: relevance (filters.Search.relevance: a phrase bonus plus ts_rank_cd) is in
-- no index and depends on the words typed, so every claim that matches is scored: the GIN
-- index (claim_search_idx) finds them, each one's vector is read once, and a top-N sort keeps
-- the page. The cost grows with the number of claims the words match, not with the queue.
-- The cursor (relevance, total, id) is applied to the scored rows; both values are computed
-- the same way on every page, so a page starts exactly where the last one ended. The
-- highlighted sentence (filters.Search.headline) is made for the page's rows only.
-- (claim_recency_points takes `ranking` joined: only then does PostgreSQL inline it, as in
-- queue_page.sql.)
--
-- Parameters, in order: relevance, in_sentence, where, the cursor's (relevance, total, id),
-- limit, headline.
WITH ranking AS MATERIALIZED (
    SELECT newest, recency, half_life_days FROM claim_queue_ranking()
),
page AS (
    SELECT id, recency, total, relevance FROM (
        SELECT claims.id, t.recency, claims.priority + t.recency AS total, {relevance} AS relevance
        FROM claims CROSS JOIN ranking CROSS JOIN LATERAL (SELECT claim_recency_points(claims.seen_at, ranking.newest, ranking.recency, ranking.half_life_days) AS recency) t
        WHERE {in_sentence} AND {where}
    ) scored
    WHERE (relevance, total, id) < (%s, %s, %s)
    ORDER BY relevance DESC, total DESC, id DESC
    LIMIT %s
)
SELECT page.id, page.recency, page.total, page.relevance, {headline} AS headline
FROM page JOIN claims ON claims.id = page.id
ORDER BY page.relevance DESC, page.total DESC, page.id DESC
