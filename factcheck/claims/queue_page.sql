-- One page of the triage queue: (id, recency, total) of the matching claims after the cursor,
-- in (total DESC, id DESC) order, where total = the standing priority (claims.priority) + the
-- recency points (filters.RECENCY_SQL, computed as the queue is read).
--
-- Why this shape: sorting every matching claim by total would read all of them for every
-- page. But recency lies between 0 and the recency weight W, so a claim can only be on the
-- page if its standing priority is at least L - W, where L is the page-size-th highest total
-- among *any* page-size matching claims after the cursor. `head` takes the first ones in
-- standing order (a short walk down claim_queue_order_idx), `page` reads the claims of that
-- index range alone and sorts them by total. Exact, and it costs what the range holds. A
-- claim after the cursor stands at or below the cursor's total (recency is never negative),
-- which bounds both walks from above.
--
-- The filters (where) and the search's two conditions (in_sentence, in_article) come
-- compiled from filters.claim_filter_q and filters.search_for. Each search condition is its
-- own branch, planned on its own: a common word walks the index until the page is full, a
-- rare one sorts its few matches (one OR across both would make PostgreSQL read every claim).
-- Without a search the second branch is FALSE and costs nothing. A claim matching both
-- branches counts once (UNION).
--
-- Parameters, in order: in_sentence's, in_article's, where's; the cursor's total; the
-- cursor's (total, id); the page size (limit) twice, limit - 1; limit three times.
WITH matching AS NOT MATERIALIZED (
    SELECT claims.id, claims.priority, {recency} AS recency, {in_sentence} AS in_sentence, {in_article} AS in_article
    FROM claims
    WHERE {where} AND claims.priority <= %s
),
after_cursor AS NOT MATERIALIZED (
    SELECT id, priority, recency, priority + recency AS total, in_sentence, in_article
    FROM matching
    WHERE (priority + recency, id) < (%s, %s)
),
head AS (
    SELECT total FROM (
        (SELECT id, total FROM after_cursor WHERE in_sentence ORDER BY priority DESC, id DESC LIMIT %s)
        UNION
        (SELECT id, total FROM after_cursor WHERE in_article ORDER BY priority DESC, id DESC LIMIT %s)
    ) first_in_standing_order
    ORDER BY total DESC OFFSET %s LIMIT 1
),
lowest AS (
    -- Fewer matches than a page: every one of them is a candidate.
    SELECT COALESCE((SELECT total FROM head), '-Infinity'::float8) - (SELECT recency FROM claim_queue_ranking()) AS priority
),
page AS (
    SELECT id, recency, total FROM (
        (SELECT id, recency, total FROM after_cursor WHERE in_sentence AND priority >= (SELECT priority FROM lowest)
         ORDER BY total DESC, id DESC LIMIT %s)
        UNION
        (SELECT id, recency, total FROM after_cursor WHERE in_article AND priority >= (SELECT priority FROM lowest)
         ORDER BY total DESC, id DESC LIMIT %s)
    ) candidates
    ORDER BY total DESC, id DESC LIMIT %s
)
SELECT id, recency, total FROM page
