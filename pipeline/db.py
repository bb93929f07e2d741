"""PostgreSQL I/O for the Spark job, with psycopg 3. No Django here.

The table and column names are a contract with the Django models (each sets db_table);
the migrations own the schema, including the UNLOGGED `claim_staging` table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import psycopg

ARTICLE_COLUMNS = ("article_id", "content_hash", "text", "outlet", "author", "published_at")

READ_RUN_ARTICLES = """
SELECT a.id, a.content_hash, a.text, COALESCE(o.name, ''), a.author, a.published_at
FROM pipeline_run_articles ra
JOIN articles a ON a.id = ra.article_id
LEFT JOIN outlets o ON o.id = a.outlet_id
WHERE ra.run_id = %(run_id)s AND a.id %% %(buckets)s = %(bucket)s
ORDER BY a.id
"""

EXISTING_CLAIM_COLUMNS = ("claim_key", "sentence", "quantities", "cluster_key")

READ_EXISTING_CLAIMS = """
SELECT claim_key, sentence, quantities::text, cluster_key
FROM claims
WHERE id %% %(buckets)s = %(bucket)s
"""

STAGING_COLUMNS = (
    "run_id", "claim_key", "article_id", "sentence", "start_offset", "end_offset",
    "score", "claim_type", "speaker", "claim_types", "quantities", "speaker_title",
    "attribution", "cluster_key",
)

# The queue's rank, as a sum of named parts the UI can show (0-100):
#   checkworthiness  50 x the model's probability
#   type             up to 15: numbers and comparisons are the most checkable
#   spread           up to 15: how many outlets repeat the claim (1 -> 0, 2 -> 5, 8+ -> 15)
#   recency          up to 20: halves every ~5 days before the newest article stored, so
#                    a re-run with no new articles changes nothing
# One definition, used where new claims are inserted and where all claims are refreshed.
NEWEST_ARTICLE = "SELECT COALESCE(max(COALESCE(published_at, created_at)), now()) AS at FROM articles"


def priority_parts_sql(*, score: str, claim_type: str, outlets: str, seen_at: str, newest: str) -> str:
    return f"""
    round((50 * {score})::numeric, 2) AS checkworthiness,
    CASE {claim_type} WHEN 'numeric' THEN 15 WHEN 'comparison' THEN 12 WHEN 'causal' THEN 12
         WHEN 'official_action' THEN 10 WHEN 'prediction' THEN 8 WHEN 'quote' THEN 6 ELSE 0 END AS type,
    round((15 * least(1.0, ln(greatest(COALESCE({outlets}, 1), 1)) / ln(8)))::numeric, 2) AS spread,
    round((20 * exp(-greatest(0, extract(epoch FROM {newest} - {seen_at})) / 86400.0 / 7))::numeric, 2) AS recency,
    COALESCE({outlets}, 1) AS outlets"""


PRIORITY = "(p.checkworthiness + p.type + p.spread + p.recency)::double precision"
PRIORITY_PARTS = """jsonb_build_object('checkworthiness', p.checkworthiness, 'type', p.type, 'spread', p.spread,
                       'recency', p.recency, 'outlets', p.outlets)"""

# An appearance counts its outlet; an article with no known outlet counts as its own.
OUTLET_OF = "COALESCE('outlet:' || a.outlet_id, 'article:' || a.id)"

# One statement merges the run's staged claims. Pipeline-owned columns are updated only
# when they differ, so a re-run writes nothing; reviewer-owned columns (status, assignee,
# version) are never in the SET list, so reviewers' work is never overwritten.
# New claims are inserted with the priority REFRESH_PRIORITIES would give them (their
# clusters' outlets counted as they will be once the run's clusters and merges are
# applied), so it finds nothing to rewrite there: a second write of every new row, with
# its 18 index entries and search vector, is what the load stage used to spend most on.
# REFRESH_PRIORITIES stays the authority; this only saves the rewrite.
MERGE_STAGED_CLAIMS = f"""
WITH staged AS (
    SELECT DISTINCT ON (claim_key) * FROM claim_staging WHERE run_id = %(run_id)s ORDER BY claim_key
), remap AS (
    SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s AND old_key <> new_key
), appearances AS (
    SELECT cluster_key, article_id FROM staged
    UNION ALL
    SELECT COALESCE(r.new_key, c.cluster_key), c.article_id
    FROM claims c LEFT JOIN remap r ON r.old_key = c.cluster_key
    WHERE c.cluster_key IN (SELECT cluster_key FROM staged UNION SELECT old_key FROM remap)
      -- NOT IN over a key that is never null: a hashed subplan whatever the planner
      -- believes of the claims table's size (a nested anti join on stale statistics
      -- compared every stored claim with every staged one: minutes for a re-run).
      AND c.claim_key NOT IN (SELECT claim_key FROM staged)
), outlets AS (
    SELECT m.cluster_key, count(DISTINCT {OUTLET_OF}) AS outlet_count
    FROM appearances m JOIN articles a ON a.id = m.article_id
    GROUP BY m.cluster_key
), p AS (
    SELECT s.*, {priority_parts_sql(score="s.score", claim_type="s.claim_type", outlets="o.outlet_count",
                                    seen_at="COALESCE(a.published_at, a.created_at)", newest="newest.at")}
    FROM staged s
    JOIN articles a ON a.id = s.article_id
    LEFT JOIN outlets o ON o.cluster_key = s.cluster_key
    CROSS JOIN ({NEWEST_ARTICLE}) newest
)
INSERT INTO claims (
    article_id, claim_key, sentence, start_offset, end_offset, score, claim_type, claim_types,
    quantities, speaker, speaker_title, attribution, cluster_key, priority, priority_parts,
    status, first_run_id, last_run_id, created_at, updated_at, version
)
SELECT
    p.article_id, p.claim_key, p.sentence, p.start_offset, p.end_offset, p.score, p.claim_type,
    string_to_array(NULLIF(p.claim_types, ''), ','), p.quantities, p.speaker, p.speaker_title, p.attribution,
    p.cluster_key, {PRIORITY}, {PRIORITY_PARTS}, 'new', p.run_id, p.run_id, now(), now(), 1
FROM p
ORDER BY p.claim_key
ON CONFLICT (claim_key) DO UPDATE SET
    sentence = EXCLUDED.sentence,
    score = EXCLUDED.score,
    claim_type = EXCLUDED.claim_type,
    claim_types = EXCLUDED.claim_types,
    quantities = EXCLUDED.quantities,
    speaker = EXCLUDED.speaker,
    speaker_title = EXCLUDED.speaker_title,
    attribution = EXCLUDED.attribution,
    cluster_key = EXCLUDED.cluster_key,
    last_run_id = EXCLUDED.last_run_id,
    updated_at = now()
WHERE (claims.sentence, claims.score, claims.claim_type, claims.claim_types, claims.quantities,
       claims.speaker, claims.speaker_title, claims.attribution, claims.cluster_key)
    IS DISTINCT FROM (EXCLUDED.sentence, EXCLUDED.score, EXCLUDED.claim_type, EXCLUDED.claim_types,
       EXCLUDED.quantities, EXCLUDED.speaker, EXCLUDED.speaker_title, EXCLUDED.attribution, EXCLUDED.cluster_key)
"""

# Clusters this run merged into others move wholesale to the surviving key.
APPLY_CLUSTER_REMAP = """
UPDATE claims SET cluster_key = r.new_key
FROM (SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s) r
WHERE claims.cluster_key = r.old_key AND r.old_key <> r.new_key
"""

# Appearances, distinct outlets (an article with no known outlet counts as its own) and the
# first appearance, for every cluster the run touched.
REFRESH_CLUSTERS = f"""
WITH touched AS (
    SELECT cluster_key FROM claim_staging WHERE run_id = %(run_id)s
    UNION SELECT new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s
), stats AS (
    SELECT c.cluster_key,
           count(*) AS size,
           count(DISTINCT {OUTLET_OF}) AS outlet_count,
           (array_agg(c.id ORDER BY COALESCE(a.published_at, a.created_at), c.id))[1] AS first_claim_id,
           min(COALESCE(a.published_at, a.created_at)) AS first_seen_at
    FROM claims c JOIN articles a ON a.id = c.article_id
    WHERE c.cluster_key IN (SELECT cluster_key FROM touched)
    GROUP BY c.cluster_key
)
INSERT INTO claim_clusters (cluster_key, size, outlet_count, first_claim_id, first_seen_at, updated_at)
SELECT cluster_key, size, outlet_count, first_claim_id, first_seen_at, now() FROM stats
ON CONFLICT (cluster_key) DO UPDATE SET
    size = EXCLUDED.size, outlet_count = EXCLUDED.outlet_count,
    first_claim_id = EXCLUDED.first_claim_id, first_seen_at = EXCLUDED.first_seen_at, updated_at = now()
WHERE (claim_clusters.size, claim_clusters.outlet_count, claim_clusters.first_claim_id, claim_clusters.first_seen_at)
    IS DISTINCT FROM (EXCLUDED.size, EXCLUDED.outlet_count, EXCLUDED.first_claim_id, EXCLUDED.first_seen_at)
"""

DROP_EMPTY_CLUSTERS = """
DELETE FROM claim_clusters cc
WHERE cc.cluster_key IN (SELECT old_key FROM claim_cluster_remap WHERE run_id = %(run_id)s)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.cluster_key = cc.cluster_key)
"""

REFRESH_PRIORITIES = f"""
WITH p AS (
    SELECT c.id, {priority_parts_sql(score="c.score", claim_type="c.claim_type", outlets="cc.outlet_count",
                                     seen_at="COALESCE(a.published_at, a.created_at)", newest="newest.at")}
    FROM claims c
    JOIN articles a ON a.id = c.article_id
    LEFT JOIN claim_clusters cc ON cc.cluster_key = c.cluster_key
    CROSS JOIN ({NEWEST_ARTICLE}) newest
)
UPDATE claims c SET priority = {PRIORITY}, priority_parts = {PRIORITY_PARTS}
FROM p
WHERE c.id = p.id AND (c.priority, c.priority_parts) IS DISTINCT FROM ({PRIORITY}, {PRIORITY_PARTS})
"""


MERGE_LOCK_ID = 0x66AC7C4EC5  # "factcheck merge": one advisory lock for all runs' merges


def connect(dsn: str) -> psycopg.Connection[Any]:
    return psycopg.connect(dsn, application_name="factcheck-pipeline")


def read_run_articles(dsn: str, *, run_id: int, buckets: int, bucket: int) -> Iterator[tuple[Any, ...]]:
    """Stream one bucket of a run's articles (a server-side cursor keeps memory flat)."""
    with connect(dsn) as conn, conn.cursor(name=f"run_{run_id}_articles_{bucket}") as cursor:
        cursor.itersize = 500
        cursor.execute(READ_RUN_ARTICLES, {"run_id": run_id, "buckets": buckets, "bucket": bucket})
        yield from cursor


def count_run_articles(dsn: str, *, run_id: int) -> int:
    with connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM pipeline_run_articles WHERE run_id = %s", (run_id,)).fetchone()
    return int(row[0]) if row else 0


def copy_to_staging(dsn: str, rows: Iterable[Sequence[Any]]) -> int:
    """COPY claim rows (in STAGING_COLUMNS order) into claim_staging; returns the row count."""
    count = 0
    with connect(dsn) as conn, conn.cursor() as cursor, cursor.copy(f"COPY claim_staging ({', '.join(STAGING_COLUMNS)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def read_existing_claims(dsn: str, *, buckets: int, bucket: int) -> Iterator[tuple[Any, ...]]:
    with connect(dsn) as conn, conn.cursor(name=f"existing_claims_{bucket}") as cursor:
        cursor.itersize = 2000
        cursor.execute(READ_EXISTING_CLAIMS, {"buckets": buckets, "bucket": bucket})
        yield from cursor


def count_claims(dsn: str) -> int:
    with connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM claims").fetchone()
    return int(row[0]) if row else 0


def write_cluster_remap(dsn: str, *, run_id: int, pairs: Iterable[tuple[str, str]]) -> None:
    with connect(dsn) as conn, conn.cursor() as cursor, cursor.copy(
        "COPY claim_cluster_remap (run_id, old_key, new_key) FROM STDIN"
    ) as copy:
        for old_key, new_key in pairs:
            copy.write_row((run_id, old_key, new_key))


def clear_staging(dsn: str, *, run_id: int) -> None:
    with connect(dsn) as conn:
        conn.execute("DELETE FROM claim_staging WHERE run_id = %s", (run_id,))
        conn.execute("DELETE FROM claim_cluster_remap WHERE run_id = %s", (run_id,))


def merge_staging(dsn: str, *, run_id: int) -> tuple[int, int]:
    """Merge the run's staged claims in one statement, apply cluster merges, refresh the
    clusters' statistics and the queue priorities, and empty the run's staging rows: all in
    one transaction, so readers never see half a run.

    Returns (distinct staged claims, claims inserted or changed).
    """
    params = {"run_id": run_id}
    with connect(dsn) as conn, conn.transaction():
        # Merges of concurrent runs take turns: each rewrites cluster statistics and
        # priorities across many rows, and two at once could deadlock on them.
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MERGE_LOCK_ID,))
        # The merge sorts a run's claims by key and groups them by cluster: in memory, not on disk.
        conn.execute("SET LOCAL work_mem = '64MB'")
        # Fresh statistics for what the run just staged: without them PostgreSQL plans the
        # merge's joins for an empty table and nests loops over tens of thousands of rows.
        conn.execute("ANALYZE claim_staging")
        conn.execute("ANALYZE claim_cluster_remap")
        staged = conn.execute("SELECT count(DISTINCT claim_key) FROM claim_staging WHERE run_id = %s", (run_id,)).fetchone()
        written = conn.execute(MERGE_STAGED_CLAIMS, params).rowcount
        conn.execute(APPLY_CLUSTER_REMAP, params)
        conn.execute(REFRESH_CLUSTERS, params)
        conn.execute(DROP_EMPTY_CLUSTERS, params)
        conn.execute(REFRESH_PRIORITIES)
        conn.execute("DELETE FROM claim_staging WHERE run_id = %s", (run_id,))
        conn.execute("DELETE FROM claim_cluster_remap WHERE run_id = %s", (run_id,))
    return int(staged[0] if staged else 0), written


def update_run(dsn: str, *, run_id: int, **fields: Any) -> None:
    """Progress written by the job itself: stage, progress, counts, timings."""
    allowed = {"stage", "progress", "articles_count", "sentences_count", "claims_count", "claims_written", "timings"}
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(f"Not run fields the job may write: {sorted(unknown)}")
    values = {key: json.dumps(value) if key == "timings" else value for key, value in fields.items()}
    assignments = ", ".join(f"{key} = %({key})s" for key in values)
    with connect(dsn) as conn:
        conn.execute(f"UPDATE pipeline_runs SET {assignments} WHERE id = %(run_id)s", {**values, "run_id": run_id})
