-- One page of the triage queue: (id, recency, total) of the matching claims after the cursor,
-- in (total DESC, id DESC) order, where total = the standing priority (claims.priority) + the
-- recency points (claim_recency_points with claim_queue_ranking(), as the queue is read).
--
-- Why this shape: sorting every matching claim by total would read all of them for every
-- page. But recency lies between 0 and the recency weight W, so a claim can only be on the
-- page if its standing priority is at least L - W, where L is the page-size-th highest total
-- among *any* page-size (or more) matching claims after the cursor:
--   head:  the first matching claims in standing order (a short walk down
--          claim_queue_order_idx), and L from them (more of them raise L: see head size in
--          selectors._queue_page_sql); when the walk ran out of matches before the head
--          size, head holds every match after the cursor and is the band;
--   band:  every claim whose total lies between L and the cursor's: its standing priority
--          within [L - W, the cursor's total], narrowed day by day of seen_at without a
--          search or for a dense one (band_days: a day's claims differ little in recency),
--          read from the indexes alone (they include seen_at, and claim_queue_day_idx the
--          status, so that a status filter, `in_index`, leaves other statuses' claims out
--          there), never from the table;
--   page:  the band after the cursor in total order, each claim checked against the filters
--          until the page is full (so a page reads about as many rows as it shows).
-- Exact: a claim after the cursor stands at or below the cursor's total, since recency is
-- never negative.
--
-- One row per cluster (first: filters.first_in_cluster, "no appearance of my cluster that
-- also matches ranks above me in standing order"): the page checks it on each row it shows
-- (a probe of claim_cluster_key_idx). The head must count only rows the page could show, or L
-- would be too high; checking it on every walked row made a search read thousands of probes.
-- So the head keeps the first row of each cluster in its walk (a walk in standing order meets
-- a cluster's best matching appearance first), only above the standing (priority, id) down to
-- which each branch read every match (below it a better appearance may not have been walked), and,
-- after a cursor (head_first), checks first on those few rows (a better appearance may be
-- on an earlier page); so does a search's later group from its first page on (first there
-- also leaves out a cluster an earlier group listed: selectors.search_page). Fewer head rows
-- only lower L: still exact.
--
-- The filters (where) and the search's two conditions (in_sentence, in_article) come compiled
-- from filters.claim_filter_q and filters.search_for. Each search condition is its own branch
-- of head and band, planned on its own: a common word walks the index until the page is full,
-- a rare one sorts its few matches (one OR across both would make PostgreSQL read every
-- claim). Without a search the second branch is FALSE and costs nothing. A claim matching
-- both is the first branch's only (so that each claim counts once without a UNION's hashing).
--
-- A walk after a cursor passes the claims the earlier pages showed (their recency lifts them
-- above the cursor's total), thousands on a page deep in the queue. With no filter and no
-- search it reads only the index (id, priority, seen_at), so the cluster key of each claim it
-- keeps is looked up on its own (walked_cluster_key, selectors._page_sql_for) rather than
-- the row of every claim it passes read from the table.
--
-- Parameters, in order: walked: (in_sentence, where, cursor, head size) and (in_article,
-- in_sentence, where, cursor, head size); walked_to: head size; head: head_first, limit - 1;
-- lowest: head size twice, the cursor's total, DENSE x head size twice; band: (total,
-- in_index) (days), total (older), (total, in_index) (no seen_at), (in_sentence, total) and
-- (in_article, in_sentence, total);
-- page: (total, id), where, in_sentence, in_article, first, limit. "cursor" is the cursor's
-- total, then its (total, id).
WITH ranking AS MATERIALIZED (
    SELECT newest, recency, half_life_days FROM claim_queue_ranking()
),
-- (claim_recency_points takes `ranking` joined, not read through subqueries in its
-- arguments: only then does PostgreSQL inline the function, and a call per claim costs far
-- more than the inlined expression.)
walked AS MATERIALIZED (
    (SELECT 1 AS branch, claims.id, {walked_cluster_key} AS cluster_key, claims.priority, claims.priority + t.recency AS total
     FROM claims CROSS JOIN ranking CROSS JOIN LATERAL (SELECT claim_recency_points(claims.seen_at, ranking.newest, ranking.recency, ranking.half_life_days) AS recency) t
     WHERE {in_sentence} AND {where} AND claims.priority <= %s AND (claims.priority + t.recency, claims.id) < (%s, %s)
     ORDER BY claims.priority DESC, claims.id DESC LIMIT %s)
    UNION ALL
    (SELECT 2 AS branch, claims.id, {walked_cluster_key} AS cluster_key, claims.priority, claims.priority + t.recency AS total
     FROM claims CROSS JOIN ranking CROSS JOIN LATERAL (SELECT claim_recency_points(claims.seen_at, ranking.newest, ranking.recency, ranking.half_life_days) AS recency) t
     WHERE {in_article} AND ({in_sentence}) IS NOT TRUE AND {where} AND claims.priority <= %s AND (claims.priority + t.recency, claims.id) < (%s, %s)
     ORDER BY claims.priority DESC, claims.id DESC LIMIT %s)
),
walked_to AS MATERIALIZED (
    -- The standing (priority, id) above which the walk read every match: the higher of the
    -- last rows of the branches that filled their limit (none did: every match was read).
    SELECT COALESCE(l.priority, '-Infinity'::float8) AS priority, COALESCE(l.id, 0) AS id
    FROM (SELECT 1) one
    LEFT JOIN LATERAL (
        SELECT priority, id FROM (
            SELECT DISTINCT ON (branch) priority, id, count(*) OVER (PARTITION BY branch) AS n
            FROM walked ORDER BY branch, priority, id
        ) last_of_branch
        WHERE n >= %s
        ORDER BY priority DESC, id DESC LIMIT 1
    ) l ON TRUE
),
head AS (
    SELECT claims.total FROM (
        SELECT w.id, w.cluster_key, w.priority, w.total, row_number() OVER (
                   PARTITION BY COALESCE(NULLIF(w.cluster_key, ''), 'claim:' || w.id) ORDER BY w.priority DESC, w.id DESC
               ) AS nth
        FROM walked w
        WHERE (w.priority, w.id) > (SELECT priority, id FROM walked_to)
    ) claims
    WHERE claims.nth = 1 AND {head_first}
    ORDER BY claims.total DESC OFFSET %s LIMIT 1
),
lowest AS MATERIALIZED (
    -- L, and the lowest standing priority a claim with a total of L can have (materialized:
    -- head is read once). Fewer matches than a page: every claim after the cursor is a
    -- candidate. Less a millionth: in floating point (p + W) - W can exceed p (58.4 + 10 - 10
    -- is 58.400000000000006), which left a claim whose total is exactly L out of the band;
    -- the band's own test (total >= L) stays exact. `complete`: neither branch of the walk
    -- reached its size, so walked holds every matching claim after the cursor and is the band
    -- itself (a narrow filter, an article's or a rare metadata value's dozens of claims,
    -- would otherwise make every claim after the cursor a candidate, each checked against
    -- the filters; the page still checks `first` on each, so a cluster is still one row).
    -- `dense`: the walk found its matches among few claims (at least one of every DENSE index
    -- entries it passed), as a common word's are: then the band is read day by day as without
    -- a search, each candidate checked against the search on the page, rather than crossing
    -- the search's index (every claim holding the word) with the band's range.
    SELECT total, total - (SELECT recency FROM ranking) - 1e-6 AS priority,
           (SELECT count(*) FROM walked WHERE branch = 1) < %s AND (SELECT count(*) FROM walked WHERE branch = 2) < %s AS complete,
           NOT {by_day} AND (SELECT count(*) FROM (SELECT FROM claims WHERE claims.priority >= (SELECT priority FROM walked_to) AND claims.priority <= %s LIMIT %s) passed) < %s AS dense
    FROM (SELECT COALESCE((SELECT total FROM head), '-Infinity'::float8) AS total OFFSET 0) l
),
band_days AS MATERIALIZED (
    -- Without a search ({by_day}) or for a dense one, the band is read one day of seen_at at a time
    -- (claim_queue_day_idx): a claim seen on `day` has a recency between `lowest` and
    -- `highest`, so it can reach L only if its standing priority is at least L - highest, and
    -- come after the cursor only if it is at most the cursor's total - lowest. Recency varies
    -- little within a day, so each day's range is narrow where one range for every claim
    -- spans the whole weight. The last 7 half-lives day by day (at most 120 days); claims
    -- older than that (under 1/128 of the weight) are read as one range below.
    SELECT d.day, to_timestamp(d.day * 86400.0) AS starts,
           claim_recency_points(least(to_timestamp((d.day + 1) * 86400.0), r.newest), r.newest, r.recency, r.half_life_days) AS highest,
           claim_recency_points(to_timestamp(d.day * 86400.0), r.newest, r.recency, r.half_life_days) AS lowest
    FROM ranking r CROSS JOIN LATERAL generate_series(
        claim_seen_day(r.newest) - least(120, ceil(7 * greatest(r.half_life_days, 0.5)))::int + 1, claim_seen_day(r.newest)) AS d(day)
    WHERE {by_day} OR (SELECT dense FROM lowest)
),
band AS MATERIALIZED (
    -- (OFFSET 0: a range of the index per day; joined as a whole, the days would be merged
    -- with every entry of the index.)
    SELECT c.id, c.total
    FROM band_days d CROSS JOIN LATERAL (
        SELECT claims.id, claims.priority + t.recency AS total
        FROM claims CROSS JOIN ranking
        CROSS JOIN LATERAL (SELECT claim_recency_points(claims.seen_at, ranking.newest, ranking.recency, ranking.half_life_days) AS recency) t
        WHERE claim_seen_day(claims.seen_at) = d.day
          AND claims.priority >= (SELECT total FROM lowest) - d.highest - 1e-6 AND claims.priority <= %s - d.lowest + 1e-6
          AND claims.priority + t.recency >= (SELECT total FROM lowest) AND {in_index}
        OFFSET 0
    ) c
    WHERE NOT (SELECT complete FROM lowest)
    UNION ALL
    -- The claims older than the days above: at most the earliest day's lowest recency.
    SELECT claims.id, claims.priority + t.recency AS total
    FROM claims CROSS JOIN ranking CROSS JOIN LATERAL (SELECT claim_recency_points(claims.seen_at, ranking.newest, ranking.recency, ranking.half_life_days) AS recency) t
    WHERE NOT (SELECT complete FROM lowest) AND ({by_day} OR (SELECT dense FROM lowest)) AND claims.seen_at < (SELECT min(starts) FROM band_days)
      AND claims.priority >= (SELECT total FROM lowest) - (SELECT lowest FROM band_days ORDER BY day LIMIT 1) - 1e-6 AND claims.priority <= %s
      AND claims.priority + t.recency >= (SELECT total FROM lowest)
    UNION ALL
    -- Claims with no seen_at count as seen with the newest (the whole weight).
    SELECT claims.id, claims.priority + t.recency AS total
    FROM claims CROSS JOIN ranking CROSS JOIN LATERAL (SELECT claim_recency_points(claims.seen_at, ranking.newest, ranking.recency, ranking.half_life_days) AS recency) t
    WHERE NOT (SELECT complete FROM lowest) AND ({by_day} OR (SELECT dense FROM lowest)) AND claim_seen_day(claims.seen_at) IS NULL
      AND claims.priority >= (SELECT priority FROM lowest) AND claims.priority <= %s AND claims.priority + t.recency >= (SELECT total FROM lowest)
      AND {in_index}
    UNION ALL
    -- With a search, each of its conditions is a range of claim_queue_order_idx the planner
    -- crosses with the search's own index (a day at a time would cross it once a day).
    SELECT claims.id, claims.priority + t.recency AS total
    FROM claims CROSS JOIN ranking CROSS JOIN LATERAL (SELECT claim_recency_points(claims.seen_at, ranking.newest, ranking.recency, ranking.half_life_days) AS recency) t
    WHERE NOT (SELECT complete FROM lowest) AND NOT {by_day} AND NOT (SELECT dense FROM lowest) AND {in_sentence}
      AND claims.priority >= (SELECT priority FROM lowest) AND claims.priority <= %s
      AND claims.priority + t.recency >= (SELECT total FROM lowest)
    UNION ALL
    SELECT claims.id, claims.priority + t.recency AS total
    FROM claims CROSS JOIN ranking CROSS JOIN LATERAL (SELECT claim_recency_points(claims.seen_at, ranking.newest, ranking.recency, ranking.half_life_days) AS recency) t
    WHERE NOT (SELECT complete FROM lowest) AND NOT (SELECT dense FROM lowest) AND {in_article} AND ({in_sentence}) IS NOT TRUE
      AND claims.priority >= (SELECT priority FROM lowest) AND claims.priority <= %s
      AND claims.priority + t.recency >= (SELECT total FROM lowest)
    UNION ALL
    SELECT id, total FROM walked WHERE (SELECT complete FROM lowest)
)
SELECT b.id, round((b.total - matching.priority)::numeric, 4)::float8 AS recency, b.total
FROM (SELECT id, total FROM band WHERE (total, id) < (%s, %s) ORDER BY total DESC, id DESC) b
-- The recency points back from the total: both have 4 decimals, so rounding recovers them.
-- (The search is checked again for the claims a dense band read by day.) The filters are
-- checked first, in a subquery of their own (OFFSET 0), and `first` only on the claims that
-- pass them: planned as one, an article filter (a join) came after `first`, whose probe of
-- claim_cluster_key_idx then ran on every candidate where one in eight passed. (`first` reads
-- the outer claim's id, priority and cluster_key only: filters.first_in_cluster.)
CROSS JOIN LATERAL (
    SELECT claims.priority FROM (
        SELECT claims.id, claims.priority, claims.cluster_key FROM claims
        WHERE claims.id = b.id AND {where} AND ({in_sentence} OR {in_article}) OFFSET 0
    ) claims
    WHERE {first}
) matching
ORDER BY b.total DESC, b.id DESC
LIMIT %s
