"""The queue's rule of one figure, one place (pipeline.nlp.stories) applied to stored clusters.

After the standing priorities of a run's touched clusters are refreshed (or every cluster's,
by a re-rank), `refresh_story_repeats`:

1. copies each touched cluster's lead story keys (rank_signals.story) onto its row
   (claim_clusters.story_keys, GIN-indexed, so the other wordings of a figure are found
   without reading every claim), in the statement that starts the search (START);
2. reads every cluster that shares a key with them, or that a touched cluster held back
   before (claim_clusters.repeat_of: its lead's wording may have changed), and the clusters
   sharing keys with those, until no key is new;
3. decides with `repeats` which of them repeat a cluster ranked above, and writes
   claim_clusters.repeat_of and each appearance's "repeat" part (the weight, from
   claim_repeat_weight()) and "repeat_of" (the lead appearance of the cluster it repeats),
   only where they differ.

The standing priority without the repeat part is what the rule reads, so running it again
changes nothing. Callers hold the merge's lock (pipeline.merge, the web app's re-rank and split).
Works with a psycopg cursor or Django's.
"""

from __future__ import annotations

from typing import Any

from pipeline.nlp.stories import StoryMember, content_words, repeats

# One statement, so the touched keys cross to PostgreSQL once: each touched cluster takes its
# lead appearance's story keys (none without a lead or a story), written where they differ;
# returned are the keys to start from (the touched clusters' new keys and those of the
# clusters they held back) and the clusters they held back, which are read again to be freed
# if their keys no longer meet (IS NOT NULL: the partial index on repeat_of answers it).
START = """
WITH touched AS (
    SELECT cluster_key FROM claim_clusters WHERE %(every)s
    UNION SELECT unnest(%(cluster_keys)s::text[])
), fresh AS (
    SELECT cc.cluster_key, cc.story_keys AS stored,
           COALESCE(ARRAY(SELECT jsonb_array_elements_text(
               CASE WHEN jsonb_typeof(lead.rank_signals -> 'story') = 'array' THEN lead.rank_signals -> 'story' END
           )), '{}')::varchar[] AS story_keys
    FROM claim_clusters cc
    JOIN touched t ON t.cluster_key = cc.cluster_key
    LEFT JOIN claims lead ON lead.id = cc.lead_claim_id
), written AS (
    UPDATE claim_clusters cc SET story_keys = f.story_keys
    FROM fresh f
    WHERE cc.cluster_key = f.cluster_key AND f.stored IS DISTINCT FROM f.story_keys
), held AS (
    SELECT cc.cluster_key, cc.story_keys
    FROM claim_clusters cc JOIN touched t ON cc.repeat_of = t.cluster_key
    WHERE cc.repeat_of IS NOT NULL
)
SELECT (SELECT COALESCE(array_agg(DISTINCT key), '{}')
        FROM (SELECT story_keys FROM fresh UNION ALL SELECT story_keys FROM held) s CROSS JOIN LATERAL unnest(s.story_keys) AS key),
       (SELECT COALESCE(array_agg(cluster_key), '{}') FROM held)
"""
# The clusters sharing a key, and those held back above. A few keys (a day's run): through the
# GIN index on story_keys, one look-up a key. Many (a first run, a re-rank): one pass over the
# clusters joined to the keys by hash, which costs less than thousands of index look-ups.
MEMBERS = """
SELECT cc.cluster_key, cc.story_keys, lead.sentence,
       lead.priority - COALESCE((lead.priority_parts ->> 'repeat')::float8, 0),
       claim_seen_day(cc.first_seen_at), lead.id
FROM claim_clusters cc
JOIN claims lead ON lead.id = cc.lead_claim_id
WHERE cc.cluster_key IN ({sharing} UNION SELECT unnest(%(also)s::text[]))
"""
SHARING_BY_INDEX = "SELECT cluster_key FROM claim_clusters WHERE story_keys && %(keys)s::varchar[]"
SHARING_BY_SCAN = """
SELECT cc.cluster_key FROM claim_clusters cc CROSS JOIN LATERAL unnest(cc.story_keys) AS key
WHERE key = ANY(%(keys)s::text[])
"""
KEYS_BY_INDEX = 500
WRITE_REPEAT_OF = """
UPDATE claim_clusters cc SET repeat_of = v.repeat_of
FROM unnest(%(keys)s::text[], %(repeat_of)s::text[]) AS v(cluster_key, repeat_of)
WHERE cc.cluster_key = v.cluster_key AND cc.repeat_of IS DISTINCT FROM v.repeat_of
"""
# Each appearance: its standing priority without a repeat part, plus the weight when its
# cluster repeats another (the parts say which appearance ranks that story).
WRITE_PARTS = """
WITH v AS (
    SELECT v.cluster_key, v.lead_id FROM unnest(%(keys)s::text[], %(lead_ids)s::bigint[]) AS v(cluster_key, lead_id)
), w AS (SELECT claim_repeat_weight() AS weight), p AS (
    SELECT c.id,
           (c.priority_parts - 'repeat' - 'repeat_of')
               || CASE WHEN v.lead_id IS NULL THEN '{}'::jsonb
                       ELSE jsonb_build_object('repeat', w.weight, 'repeat_of', v.lead_id) END AS parts,
           round((c.priority - COALESCE((c.priority_parts ->> 'repeat')::float8, 0)
                  + CASE WHEN v.lead_id IS NULL THEN 0 ELSE w.weight END)::numeric, 4)::float8 AS priority
    FROM claims c JOIN v ON v.cluster_key = c.cluster_key CROSS JOIN w
)
UPDATE claims c SET priority = p.priority, priority_parts = p.parts
FROM p
WHERE c.id = p.id AND (c.priority, c.priority_parts) IS DISTINCT FROM (p.priority, p.parts)
"""
# Keys reach further through the members read (a figure said of two actors): at most this many
# rounds, more than any story of real news needs.
MAX_ROUNDS = 8


def refresh_story_repeats(cursor: Any, cluster_keys: list[str] | None) -> int:
    """Apply the rule to the clusters `cluster_keys` touched (None: every cluster); returns
    the clusters whose repeat_of changed."""
    every = cluster_keys is None
    params = {"every": every, "cluster_keys": cluster_keys or []}
    cursor.execute(START, params)
    start_keys, held = cursor.fetchone()
    keys: set[str] = set(start_keys)
    also: list[str] = list(held)
    rows: list[tuple[Any, ...]] = []
    for _ in range(MAX_ROUNDS):
        if not keys and not also:
            return 0
        sharing = SHARING_BY_INDEX if len(keys) <= KEYS_BY_INDEX else SHARING_BY_SCAN
        cursor.execute(MEMBERS.format(sharing=sharing), {"keys": sorted(keys), "also": also})
        rows = cursor.fetchall()
        reached = {key for row in rows for key in row[1]}
        if reached <= keys:
            break
        keys |= reached
    members = [
        StoryMember(cluster_key, tuple(story), content_words(sentence), float(priority or 0), day)
        for cluster_key, story, sentence, priority, day, _ in rows
    ]
    found = repeats(members)
    lead_of = {row[0]: row[5] for row in rows}
    cluster_list = [row[0] for row in rows]
    cursor.execute(WRITE_REPEAT_OF, {"keys": cluster_list, "repeat_of": [found.get(key) for key in cluster_list]})
    changed = cursor.rowcount
    cursor.execute(WRITE_PARTS, {"keys": cluster_list, "lead_ids": [lead_of[found[key]] if key in found else None for key in cluster_list]})
    return max(changed, 0)
