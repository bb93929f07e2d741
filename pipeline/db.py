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

STAGING_COLUMNS = (
    "run_id", "claim_key", "article_id", "sentence", "start_offset", "end_offset",
    "score", "claim_type", "speaker",
)

# One statement merges the run's staged claims. Pipeline-owned columns are updated only
# when they differ, so a re-run writes nothing; reviewer-owned columns (status, assignee,
# version) are never in the SET list, so reviewers' work is never overwritten.
MERGE_STAGED_CLAIMS = """
INSERT INTO claims (
    article_id, claim_key, sentence, start_offset, end_offset, score, claim_type, speaker,
    status, first_run_id, last_run_id, created_at, updated_at, version
)
SELECT DISTINCT ON (claim_key)
    article_id, claim_key, sentence, start_offset, end_offset, score, claim_type, speaker,
    'new', run_id, run_id, now(), now(), 1
FROM claim_staging
WHERE run_id = %(run_id)s
ORDER BY claim_key
ON CONFLICT (claim_key) DO UPDATE SET
    sentence = EXCLUDED.sentence,
    score = EXCLUDED.score,
    claim_type = EXCLUDED.claim_type,
    speaker = EXCLUDED.speaker,
    last_run_id = EXCLUDED.last_run_id,
    updated_at = now()
WHERE (claims.sentence, claims.score, claims.claim_type, claims.speaker)
    IS DISTINCT FROM (EXCLUDED.sentence, EXCLUDED.score, EXCLUDED.claim_type, EXCLUDED.speaker)
"""


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


def clear_staging(dsn: str, *, run_id: int) -> None:
    with connect(dsn) as conn:
        conn.execute("DELETE FROM claim_staging WHERE run_id = %s", (run_id,))


def merge_staging(dsn: str, *, run_id: int) -> tuple[int, int]:
    """Merge the run's staged claims into claims in one statement, then drop them from staging.

    Returns (distinct staged claims, claims inserted or changed).
    """
    with connect(dsn) as conn, conn.transaction():
        staged = conn.execute(
            "SELECT count(DISTINCT claim_key) FROM claim_staging WHERE run_id = %s", (run_id,)
        ).fetchone()
        written = conn.execute(MERGE_STAGED_CLAIMS, {"run_id": run_id}).rowcount
        conn.execute("DELETE FROM claim_staging WHERE run_id = %s", (run_id,))
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
