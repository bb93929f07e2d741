"""PostgreSQL I/O for the Spark job, with psycopg 3. No Django here.

The table and column names are a contract with the Django models (each sets db_table);
the migrations own the schema, including the UNLOGGED `claim_staging` table, whose columns
pipeline.staging defines. The statements are named files in pipeline/sql/; the merge is
pipeline.merge.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import postgres, sql
from psycopg.adapt import Dumper
from psycopg.pq import Format

from pipeline.match_store import UPSERT_CLAIM_MATCHES
from pipeline.merge import merge_run, settle_search_indexes, settle_visibility, write_run_bands
from pipeline.nlp.clustering import Clustering, NodeClaim, claim_node, cluster_tokens
from pipeline.sql import statement
from pipeline.staging import CLAIM_COLUMN_NAMES, STAGING_COLUMNS, STAGING_TABLE

COUNT_RUN_ARTICLES = "SELECT count(*) FROM pipeline_run_articles WHERE run_id = %(run_id)s"
CLAIM_IDS_BY_KEY = "SELECT claim_key, id FROM claims WHERE claim_key = ANY(%(keys)s)"
# The binary COPY into claim_staging, its columns and their types from pipeline.staging.
COPY_STAGING = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(
    sql.Identifier(STAGING_TABLE), sql.SQL(", ").join(sql.Identifier(column.name) for column in STAGING_COLUMNS)
)
STAGING_COPY_TYPES = [column.copy_type for column in STAGING_COLUMNS]
# The columns of pipeline_runs the job itself may write.
RUN_FIELDS = frozenset(
    {"stage", "progress", "articles_count", "articles_done", "sentences_count", "claims_count", "claims_written", "timings"}
)
ARTICLE_ID_AT = CLAIM_COLUMN_NAMES.index("article_id")
# How often the sink reports the extraction's progress: every this many claims staged.
PROGRESS_EVERY_CLAIMS = 200
ADD_EXTRACTED = (
    "UPDATE pipeline_runs SET articles_done = least(articles_count, articles_done + %(articles)s),"
    " claims_count = claims_count + %(claims)s WHERE id = %(run_id)s"
)


def connect(dsn: str) -> psycopg.Connection[Any]:
    return psycopg.connect(dsn, application_name="factcheck-pipeline")


def merge_with_bands(
    dsn: str, *, run_id: int, clustering: Clustering, model_version_id: int | None = None, timings: dict[str, float] | None = None
) -> tuple[int, int]:
    """The run's merge (pipeline.merge.merge_run, one transaction) and, at the same time on a
    second connection, its band keys (merge.write_run_bands): the merge's slowest statements
    and the band keys' millions of rows each keep one PostgreSQL backend busy, so side by side
    they take the longer one's time, not both. The band keys commit first: the merge's
    transaction waits for them before its commit, which deletes the staged rows they are read
    from, and rolls back if they fail. Returns what merge_run returns. Band keys committed for
    a merge that then fails name claims no reader finds, and the retry writes them again."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bands") as beside:

        def bands() -> float:
            started = time.perf_counter()
            with connect(dsn) as conn:
                write_run_bands(conn, run_id=run_id)
            return round(time.perf_counter() - started, 3)

        pending = beside.submit(bands)
        with connect(dsn) as conn:
            result = merge_run(conn, run_id=run_id, clustering=clustering, model_version_id=model_version_id, timings=timings)
            seconds = pending.result()
    if timings is not None:
        timings["merge.bands"] = seconds
    return result


def read_run_articles(dsn: str, *, run_id: int, buckets: int, bucket: int) -> Iterator[tuple[Any, ...]]:
    """Stream one id bucket of a run's articles (a server-side cursor keeps memory flat)."""
    with connect(dsn) as conn, conn.cursor(name=f"run_{run_id}_articles_{bucket}") as cursor:
        cursor.itersize = 500
        cursor.execute(statement("read_run_articles"), {"run_id": run_id, "buckets": buckets, "bucket": bucket})
        yield from cursor


def count_run_articles(dsn: str, *, run_id: int) -> int:
    with connect(dsn) as conn:
        row = conn.execute(COUNT_RUN_ARTICLES, {"run_id": run_id}).fetchone()
    return int(row[0]) if row else 0


class PreserializedJsonbDumper(Dumper):
    """jsonb in binary COPY from a str that already is JSON text (the staged quantities):
    the binary jsonb format is a version byte and the text."""

    format = Format.BINARY
    oid = postgres.types["jsonb"].oid

    def dump(self, obj: Any) -> bytes:
        return b"\x01" + obj.encode()


def stage_claims(conn: psycopg.Connection[Any], rows: Iterable[Sequence[Any]]) -> int:
    """COPY claim rows (in pipeline.staging.STAGING_COLUMNS order) into claim_staging on an
    open connection (committed with it); returns the row count.

    Binary COPY: PostgreSQL receives numbers and arrays as they are stored rather than
    parsing text, and psycopg writes them in C (docs/benchmarks.md has what it buys)."""
    # By type name only (set_types below), on this connection's own adapters.
    conn.adapters.register_dumper(None, PreserializedJsonbDumper)
    count = 0
    with conn.cursor() as cursor, cursor.copy(COPY_STAGING) as copy:
        copy.set_types(STAGING_COPY_TYPES)
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def read_stored_memberships(dsn: str, *, run_id: int) -> list[tuple[int, int]]:
    """(node, band key) of the stored claims that share a band key with a claim the run
    staged (read_stored_memberships.sql): what the run's claims can cluster with."""
    with connect(dsn) as conn:
        return [(int(node), int(band)) for node, band in conn.execute(statement("read_stored_memberships"), {"run_id": run_id})]


def read_candidate_claims(dsn: str, *, run_id: int, nodes: Iterable[int]) -> dict[int, list[NodeClaim]]:
    """node -> the claims behind it, for the clustering's exact step: a claim this run
    extracted carries the run's tokens, a stored one its cluster key, its stored signature (computed from its sentence if it has none) and
    the clusters reviewers split its cluster apart from (read_cluster_splits.sql)."""
    wanted = sorted(set(nodes))
    if not wanted:
        return {}
    params = {"run_id": run_id, "nodes": wanted}
    stored_clusters: dict[str, str] = {}
    stored_tokens: dict[str, list[str]] = {}
    apart: dict[str, set[str]] = {}
    with connect(dsn) as conn:
        run_tokens = dict(conn.execute(statement("read_run_candidates"), params).fetchall())
        for key, cluster_key, tokens, sentence, quantities in conn.execute(statement("read_stored_candidates"), params):
            stored_clusters[key] = cluster_key
            stored_tokens[key] = tokens if tokens is not None else cluster_tokens(sentence, json.loads(quantities or "[]"))
        if stored_clusters:
            splits = conn.execute(statement("read_cluster_splits"), {"clusters": sorted(set(stored_clusters.values()))})
            for left, right in splits:
                apart.setdefault(left, set()).add(right)
                apart.setdefault(right, set()).add(left)
    claims: dict[int, list[NodeClaim]] = {}
    for key in sorted(run_tokens.keys() | stored_clusters.keys()):
        tokens = run_tokens[key] if key in run_tokens else stored_tokens[key]
        cluster = stored_clusters.get(key)
        claims.setdefault(claim_node(key), []).append(
            NodeClaim(key, tokens, key in run_tokens, cluster, frozenset(apart.get(cluster, ())) if cluster else frozenset())
        )
    return claims


def read_library(dsn: str) -> list[dict[str, str]]:
    """The fact-check library (read_library.sql) as pipeline.nlp.matching's entries, with
    own_claim_key where the entry is the desk's verdict on a claim; empty fields left out."""
    names = ("id", "claim", "title", "summary", "rating", "url", "date", "publisher", "own_claim_key")
    with connect(dsn) as conn:
        rows = conn.execute(statement("read_library")).fetchall()
    entries = []
    for row in rows:
        values = dict(zip(names, row, strict=True))
        values["id"] = str(values["id"])
        values["date"] = values["date"].isoformat() if values["date"] else None
        entries.append({name: value for name, value in values.items() if value})
    return entries


# Matching indexes kept in factcheck_match_indexes (pipeline.match_library prunes to these).
KEPT_MATCH_INDEXES = 2


def read_match_index(dsn: str, *, key: str) -> bytes | None:
    """The kept matching index (MatchIndex.to_bytes) of the library state `key`, if any."""
    with connect(dsn) as conn:
        row = conn.execute(statement("read_match_index"), {"key": key}).fetchone()
    return bytes(row[0]) if row else None


def read_matching_artifact_dir(dsn: str) -> str:
    """The active claim-matching version's artifact directory ("" for the shipped one)."""
    with connect(dsn) as conn:
        row = conn.execute(statement("read_matching_artifact")).fetchone()
    return str(row[0]) if row else ""


def write_match_index(dsn: str, *, key: str, data: bytes, entries: int) -> None:
    """Keep a built index under its library key, and drop all but the newest few."""
    with connect(dsn) as conn:
        conn.execute(statement("write_match_index"), {"key": key, "data": data, "entries": entries})
        conn.execute(statement("prune_match_indexes"), {"keep": KEPT_MATCH_INDEXES})


def read_article_dates(dsn: str, *, run_id: int) -> list[tuple[int, str]]:
    with connect(dsn) as conn:
        return [(int(article), day.isoformat()) for article, day in conn.execute(statement("read_run_article_dates"), {"run_id": run_id})]


def write_matches(dsn: str, rows: Sequence[tuple[str, int, float, int]]) -> int:
    """(claim_key, factcheck_id, score, rank) -> claim_matches through UPSERT_CLAIM_MATCHES
    (pipeline.match_store: the one rule for what a suggestion may overwrite), in one
    transaction; a key with no stored claim is dropped. Returns the rows written."""
    if not rows:
        return 0
    with connect(dsn) as conn:
        ids = dict(conn.execute(CLAIM_IDS_BY_KEY, {"keys": sorted({key for key, *_ in rows})}).fetchall())
        kept = [row for row in rows if row[0] in ids]
        params = {
            "claim_ids": [ids[key] for key, *_ in kept],
            "factcheck_ids": [factcheck for _, factcheck, _, _ in kept],
            "scores": [score for _, _, score, _ in kept],
            "ranks": [rank for *_, rank in kept],
        }
        return conn.execute(UPSERT_CLAIM_MATCHES, params).rowcount


def clear_staging(dsn: str, *, run_id: int) -> None:
    """Delete what a run wrote before its merge (clear_run_scratch.sql): at the start of an
    attempt, and for an attempt that failed (factcheck.runs.services.run_scratch_clear)."""
    with connect(dsn) as conn:
        conn.execute(statement("clear_run_scratch"), {"run_id": run_id})


def settle_indexes(dsn: str) -> dict[str, int]:
    """What a merge left pending in the GIN indexes, flushed into them
    (pipeline.merge.settle_search_indexes), each index in a transaction of its own, then the
    claims' new pages marked all-visible (pipeline.merge.settle_visibility): after a run
    (factcheck.runs.services.search_indexes_settle). Returns the pages flushed per index."""
    with connect(dsn) as conn:
        conn.autocommit = True
        flushed = settle_search_indexes(conn)
        settle_visibility(conn)
        return flushed


def update_run(dsn: str, *, run_id: int, **fields: Any) -> None:
    """Progress written by the job itself: stage, progress, counts, timings."""
    unknown = set(fields) - RUN_FIELDS
    if unknown:
        raise ValueError(f"Not run fields the job may write: {sorted(unknown)}")
    values = {key: json.dumps(value) if key == "timings" else value for key, value in fields.items()}
    assignments = sql.SQL(", ").join(sql.SQL("{} = {}").format(sql.Identifier(key), sql.Placeholder(key)) for key in values)
    if "stage" in values:
        # The page's time estimate divides the stage's counts by the time spent in it.
        assignments = sql.SQL(", ").join([assignments, sql.SQL("stage_started_at = now()")])
    query = sql.SQL("UPDATE pipeline_runs SET {} WHERE id = {}").format(assignments, sql.Placeholder("run_id"))
    with connect(dsn) as conn:
        conn.execute(query, {**values, "run_id": run_id})


def extraction_progress(
    rows: Iterable[Sequence[Any]], conn: psycopg.Connection[Any], run_id: int, every: int = PROGRESS_EVERY_CLAIMS
) -> Iterator[Sequence[Any]]:
    """Pass claim rows (CLAIM_COLUMNS order) through, adding to the run's articles_done and
    claims_count every `every` claims, on their own autocommitted connection: the staging
    COPY commits only at the task's end, and the page must see the extraction move before.

    The sink sees a claim only once its article is extracted, so the count never runs ahead
    of the work. An article is counted when its first claim passes; one without claims is
    counted when the stage ends (the job then sets the exact figures). A retried Spark task
    counts its articles again: articles_done is capped at the run's article count."""
    seen: set[int] = set()
    articles = claims = 0

    def report() -> None:
        nonlocal articles, claims
        if claims:
            conn.execute(ADD_EXTRACTED, {"articles": articles, "claims": claims, "run_id": run_id})
        articles = claims = 0

    for row in rows:
        article_id = row[ARTICLE_ID_AT]
        if article_id not in seen:
            seen.add(article_id)
            articles += 1
        claims += 1
        if claims >= every:
            report()
        yield row
    report()


@dataclass(frozen=True)
class PostgresRun:
    """A run's data in PostgreSQL (pipeline.run_store.RunStore): its articles, its staging
    rows, the stored claims, and the merge (pipeline.merge)."""

    dsn: str
    run_id: int
    # The model version whose artifacts score the run: every claim it writes records it.
    model_version_id: int | None = None

    def read_articles(self, *, buckets: int, bucket: int) -> Iterator[tuple[Any, ...]]:
        return read_run_articles(self.dsn, run_id=self.run_id, buckets=buckets, bucket=bucket)

    def write_claims(self, rows: Iterable[Sequence[Any]]) -> int:
        with connect(self.dsn) as conn, connect(self.dsn) as progress_conn:
            progress_conn.autocommit = True
            return stage_claims(conn, ((self.run_id, *row) for row in extraction_progress(rows, progress_conn, self.run_id)))

    def read_stored_memberships(self) -> list[tuple[int, int]]:
        return read_stored_memberships(self.dsn, run_id=self.run_id)

    def read_candidate_claims(self, nodes: Iterable[int]) -> dict[int, list[NodeClaim]]:
        return read_candidate_claims(self.dsn, run_id=self.run_id, nodes=nodes)

    def merge(self, clustering: Clustering, timings: dict[str, float] | None = None) -> tuple[int, int]:
        return merge_with_bands(self.dsn, run_id=self.run_id, clustering=clustering, model_version_id=self.model_version_id, timings=timings)

    def read_library(self) -> list[dict[str, str]]:
        return read_library(self.dsn)

    def read_article_dates(self) -> list[tuple[int, str]]:
        return read_article_dates(self.dsn, run_id=self.run_id)

    def read_match_index(self, key: str) -> bytes | None:
        return read_match_index(self.dsn, key=key)

    def write_match_index(self, key: str, data: bytes, entries: int) -> None:
        write_match_index(self.dsn, key=key, data=data, entries=entries)

    def read_matching_artifact_dir(self) -> str:
        return read_matching_artifact_dir(self.dsn)

    def write_matches(self, rows: Sequence[tuple[str, int, float, int]]) -> int:
        return write_matches(self.dsn, rows)
