-- A page of a search's first two groups read in one go (filters.Search.groups: the claims whose
-- own text has the words as one phrase, then those whose own text has them otherwise), for a
-- search that matches at most a cap of claims. Read once here, each match gets its group and
-- total and the page is sorted from them, where two walks of the queue (queue_page.sql, one per
-- group) would each read the matches again. The phrase group is found through the phrase's
-- adjacent word pairs (claims.phrase_pairs) where it has any; without them, every match's text.
-- A search in words' order (a quoted phrase: one group, `phrase` TRUE) is read here too:
-- PostgreSQL estimates it as its words anywhere, so a walk of the queue for a rare phrase of
-- common words reads every entry.
--
-- One row per cluster, as on every queue page: a cluster's row is its best-ranked appearance
-- (standing priority, then id) in the first group that holds one of its matching appearances.
-- `capped`: more claims matched than the cap; then no row comes back and selectors.search_page
-- pages group by group instead.
--
-- `floor`: of the other-order group, only the matches whose standing priority is at least this
-- are read (the phrase group whole: it comes first whatever its priority, and its adjacent word
-- pairs find it through their own index). A match below the floor has a total below floor + W
-- (W, the recency weight, comes back as `weight`), so the page is exact when its last row is of
-- the phrase group or has a total of at least floor + W; else selectors._sentence_groups_read
-- reads again from a lower floor. For two common words this reads the few hundred matches near
-- the top of the queue rather than thousands.
--
-- Parameters, in order: phrase, in_sentence, where, floor, then in_sentence, where, floor,
-- phrase; cap + 1, cap, then the position after which the page starts: its group twice, its
-- total and id; limit.
WITH ranking AS MATERIALIZED (
    SELECT newest, recency, half_life_days FROM claim_queue_ranking()
),
-- Each match as read from its row, and nothing computed yet but its group: the dedupe below
-- reads standing order only, and recency is worked out for the rows it keeps. A claim in no
-- cluster has a NULL `cluster`, which the dedupe's hash leaves out (no other row is its cluster).
-- The floor splits the read in two, each planned on its own: the matches at or above it (the
-- search index crossed with a range of the order index), and the phrase matches below it (the
-- pairs' index); as one OR, PostgreSQL read every match and filtered.
matches AS MATERIALIZED (
    SELECT * FROM (
        SELECT claims.id, NULLIF(claims.cluster_key, '') AS cluster, claims.priority, claims.seen_at, CASE WHEN {phrase} THEN 0 ELSE 1 END AS grp
        FROM claims
        WHERE {in_sentence} AND {where} AND claims.priority >= %s
        UNION ALL
        SELECT claims.id, NULLIF(claims.cluster_key, '') AS cluster, claims.priority, claims.seen_at, 0 AS grp
        FROM claims
        WHERE {in_sentence} AND {where} AND claims.priority < %s AND {phrase}
    ) found
    LIMIT %s
),
capped AS MATERIALIZED (
    SELECT count(*) > %s AS yes FROM matches
),
cluster_rows AS (
    -- A match is its cluster's row unless another match of the cluster comes first (an
    -- earlier group, then standing priority and id).
    SELECT m.id, m.grp, m.priority + t.recency AS total, t.recency
    FROM matches m CROSS JOIN ranking
    CROSS JOIN LATERAL (SELECT claim_recency_points(m.seen_at, ranking.newest, ranking.recency, ranking.half_life_days) AS recency) t
    WHERE NOT EXISTS (
        SELECT FROM matches o WHERE o.cluster = m.cluster AND (o.grp, -o.priority, -o.id) < (m.grp, -m.priority, -m.id)
    )
)
SELECT capped.yes, (SELECT recency FROM ranking) AS weight, r.id, r.recency, r.total, r.grp
FROM capped
LEFT JOIN LATERAL (
    SELECT id, recency, total, grp FROM cluster_rows
    WHERE NOT capped.yes AND (grp > %s OR (grp = %s AND (total, id) < (%s, %s)))
    ORDER BY grp, total DESC, id DESC
    LIMIT %s
) r ON TRUE
