"""PostgreSQL I/O for the Spark job, with psycopg 3. No Django here.

The table and column names are a contract with the Django models (each sets db_table);
the migrations own the schema, including the UNLOGGED `claim_staging` table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import psycopg
from psycopg import postgres
from psycopg.adapt import Dumper
from psycopg.pq import Format

from pipeline.nlp.clustering import NodeClaim, claim_node, cluster_tokens

ARTICLE_COLUMNS = ("article_id", "content_hash", "text", "outlet", "author", "published_at")

READ_RUN_ARTICLES = """
SELECT a.id, a.content_hash, a.text, COALESCE(o.name, ''), a.author, a.published_at
FROM pipeline_run_articles ra
JOIN articles a ON a.id = ra.article_id
LEFT JOIN outlets o ON o.id = a.outlet_id
WHERE ra.run_id = %(run_id)s AND a.id %% %(buckets)s = %(bucket)s
ORDER BY a.id
"""

# A claim's node number in SQL (pipeline.nlp.clustering.claim_node): the first 60 bits of its
# key. The claims table has an index on exactly this expression (claims migration 0009); a
# key that does not start with hex digits (written by other means) has none.
def node_of(column: str) -> str:
    return f"(CASE WHEN {column} ~ '^[0-9a-f]{{15}}' THEN ('x' || left({column}, 15))::bit(60)::bigint END)"


# The stored claims' band keys, one id bucket at a time: their signatures (claim_signatures),
# or, for a claim without one, its sentence and quantities to compute them from.
READ_STORED_BANDS = """
SELECT c.claim_key, s.bands,
       CASE WHEN s.claim_key IS NULL THEN c.sentence END,
       CASE WHEN s.claim_key IS NULL THEN c.quantities::text END
FROM claims c LEFT JOIN claim_signatures s ON s.claim_key = c.claim_key
WHERE c.id %% %(buckets)s = %(bucket)s
"""

# The claims behind candidate nodes: this run's (staged, with the tokens it extracted) and
# the stored ones (with their cluster key and signature, or what to compute one from).
READ_RUN_CANDIDATES = f"""
SELECT DISTINCT ON (claim_key) claim_key, tokens
FROM claim_staging
WHERE run_id = %(run_id)s AND {node_of("claim_key")} = ANY(%(nodes)s::bigint[])
ORDER BY claim_key
"""
READ_STORED_CANDIDATES = f"""
SELECT c.claim_key, c.cluster_key, s.tokens,
       CASE WHEN s.claim_key IS NULL THEN c.sentence END,
       CASE WHEN s.claim_key IS NULL THEN c.quantities::text END
FROM claims c LEFT JOIN claim_signatures s ON s.claim_key = c.claim_key
WHERE {node_of("c.claim_key")} = ANY(%(nodes)s::bigint[])
"""

STAGING_COLUMNS = (
    "run_id", "claim_key", "article_id", "sentence", "start_offset", "end_offset",
    "score", "claim_type", "speaker", "claim_types", "quantities", "speaker_title",
    "attribution", "cluster_key", "rank_signals", "context",
)
# claim_staging's column types, for binary COPY.
STAGING_TYPES = {
    "run_id": "int8", "claim_key": "varchar", "article_id": "int8", "sentence": "text", "start_offset": "int4",
    "end_offset": "int4", "score": "float8", "claim_type": "varchar", "speaker": "varchar", "claim_types": "text",
    "quantities": "jsonb", "speaker_title": "varchar", "attribution": "varchar", "cluster_key": "varchar",
    "rank_signals": "jsonb", "context": "text", "tokens": "text[]", "bands": "int8[]",
}
# What the Spark job stages besides: the claim's signature for clustering (tokens, bands).
SIGNATURE_COLUMNS = ("tokens", "bands")

# The queue's standing rank is the PostgreSQL function claim_priority_parts(score, claim_type,
# signals, outlets) -> one row (parts jsonb), called in FROM so that PostgreSQL inlines it
# (claims migration 0015 creates it; it reads the one-row table ranking_weights): every part in
# points, the outlet count, the topic, the weights' version and `priority`, their sum. The merge
# and the web app's re-rank both call it, so the formula and its weights have one definition
# each. Recency is not stored: the queue adds claim_recency_points(seen_at, ...) as it reads,
# so newer articles never make a run rewrite stored priorities.
# The version of the weights claim_priority_parts reads (0: none stored, the defaults).
WEIGHTS_VERSION = "SELECT COALESCE((SELECT version FROM ranking_weights WHERE id = 1), 0)"
# The stored priorities' parts: the function's, less the sum (the priority column holds it).
PRIORITY = "(p.parts ->> 'priority')::double precision"
PRIORITY_PARTS = "(p.parts - 'priority')"

# An appearance counts its outlet; an article with no known outlet counts as its own.
OUTLET_OF = "COALESCE('outlet:' || a.outlet_id, 'article:' || a.id)"

# The tables a run writes before its merge and empties after it (all keyed by run_id).
RUN_SCRATCH_TABLES = ("claim_staging", "claim_cluster_assignments", "claim_cluster_remap")

# Fresh statistics for what a run just staged, on the columns the merge joins on only (a
# sentence column's statistics cost more than the rest): without them PostgreSQL plans the
# merge's joins for empty tables and nests loops over tens of thousands of rows.
SCRATCH_JOIN_COLUMNS = {
    "claim_staging": "run_id, claim_key",
    "claim_cluster_assignments": "run_id, claim_key",
    "claim_cluster_remap": "run_id, old_key",
}

# The run's claims as the merge takes them, one chunk at a time (all of them, or the
# staged rows of some article-id buckets): one row per claim key (a retried Spark task
# may have staged a claim twice) with its final cluster key. Executors stage claims before
# clustering, with an empty cluster key; the clustering then writes an assignment for each
# claim it joined to others and a remap for each stored cluster that merged into another.
# Every other claim keeps its stored cluster, or forms its own; a key the staging row
# carries itself (a caller that clustered on its own) comes before both.
RUN_STAGED = """
CREATE TEMP TABLE {table} ON COMMIT DROP AS
WITH remap AS (
    SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s AND old_key <> new_key
), staged AS (
    SELECT DISTINCT ON (claim_key) * FROM claim_staging
    WHERE run_id = %(run_id)s AND (%(buckets)s = 0 OR article_id %% %(buckets)s = ANY(%(chosen)s::int[]))
    ORDER BY claim_key
), keyed AS (
    SELECT s.*, COALESCE(a.cluster_key, NULLIF(s.cluster_key, ''), NULLIF(c.cluster_key, ''), s.claim_key) AS own_cluster_key
    FROM staged s
    LEFT JOIN claim_cluster_assignments a ON a.run_id = s.run_id AND a.claim_key = s.claim_key
    LEFT JOIN claims c ON c.claim_key = s.claim_key
)
SELECT k.run_id, k.claim_key, k.article_id, k.sentence, k.start_offset, k.end_offset, k.score, k.claim_type, k.speaker,
       k.claim_types, k.quantities, k.speaker_title, k.attribution, k.rank_signals, k.context, k.tokens, k.bands, k.own_cluster_key,
       COALESCE(r.new_key, k.own_cluster_key) AS cluster_key
FROM keyed k LEFT JOIN remap r ON r.old_key = k.own_cluster_key
"""

# The run's claims' signatures, for later runs to cluster against (pipeline.db.READ_STORED_NODES).
UPSERT_SIGNATURES = """
INSERT INTO claim_signatures (claim_key, tokens, bands)
SELECT claim_key, tokens, bands FROM run_chunk
ON CONFLICT (claim_key) DO UPDATE SET tokens = EXCLUDED.tokens, bands = EXCLUDED.bands
WHERE (claim_signatures.tokens, claim_signatures.bands) IS DISTINCT FROM (EXCLUDED.tokens, EXCLUDED.bands)
"""

# Once the clustering's assignments and remaps are in: the run's final cluster keys.
FINAL_CLUSTER_KEYS = """
UPDATE run_staged s SET cluster_key = f.cluster_key
FROM (
    SELECT s2.claim_key, COALESCE(r.new_key, k.cluster_key) AS cluster_key
    FROM run_staged s2
    LEFT JOIN claim_cluster_assignments a ON a.run_id = %(run_id)s AND a.claim_key = s2.claim_key
    CROSS JOIN LATERAL (SELECT COALESCE(a.cluster_key, s2.own_cluster_key) AS cluster_key) k
    LEFT JOIN (SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s AND old_key <> new_key) r
        ON r.old_key = k.cluster_key
) f
WHERE f.claim_key = s.claim_key AND s.cluster_key IS DISTINCT FROM f.cluster_key
"""

# The claims whose cluster the clustering changed after they were merged.
UPDATE_CLUSTER_KEYS = """
UPDATE claims c SET cluster_key = s.cluster_key, last_run_id = s.run_id, updated_at = now()
FROM run_staged s
WHERE c.claim_key = s.claim_key AND c.cluster_key IS DISTINCT FROM s.cluster_key
RETURNING c.id
"""

# One statement merges the run's claims. Pipeline-owned columns are updated only
# when they differ, so a re-run writes nothing; reviewer-owned columns (status, assignee,
# version) are never in the SET list, so reviewers' work is never overwritten.
# New claims are inserted with the priority REFRESH_PRIORITIES would give them in their
# provisional clusters, so only the claims
# whose clusters the clustering then changes are written twice: a second write of every new
# row, with its index entries and search vector, is what the load stage used to spend most
# on. REFRESH_PRIORITIES stays the authority; this only saves the rewrite.
MERGE_STAGED_CLAIMS = f"""
WITH staged AS (
    SELECT * FROM run_chunk
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
    SELECT s.*, pp.parts, COALESCE(a.published_at, a.created_at) AS seen_at
    FROM staged s
    JOIN articles a ON a.id = s.article_id
    LEFT JOIN outlets o ON o.cluster_key = s.cluster_key
    CROSS JOIN LATERAL claim_priority_parts(s.score, s.claim_type, s.rank_signals, o.outlet_count) pp
)
INSERT INTO claims (
    article_id, claim_key, sentence, start_offset, end_offset, score, claim_type, claim_types,
    quantities, speaker, speaker_title, attribution, rank_signals, context, cluster_key, priority, priority_parts,
    seen_at, status, first_run_id, last_run_id, created_at, updated_at, version
)
SELECT
    p.article_id, p.claim_key, p.sentence, p.start_offset, p.end_offset, p.score, p.claim_type,
    string_to_array(NULLIF(p.claim_types, ''), ','), p.quantities, p.speaker, p.speaker_title, p.attribution,
    p.rank_signals, p.context, p.cluster_key, {PRIORITY}, {PRIORITY_PARTS}, p.seen_at, 'new', p.run_id, p.run_id, now(), now(), 1
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
    rank_signals = EXCLUDED.rank_signals,
    context = EXCLUDED.context,
    cluster_key = EXCLUDED.cluster_key,
    seen_at = EXCLUDED.seen_at,
    -- A claim whose score, type or signals changed is ranked anew with them; its priority
    -- alone never makes a row differ (REFRESH_PRIORITIES follows clusters).
    priority = EXCLUDED.priority,
    priority_parts = EXCLUDED.priority_parts,
    last_run_id = EXCLUDED.last_run_id,
    updated_at = now()
WHERE (claims.sentence, claims.score, claims.claim_type, claims.claim_types, claims.quantities,
       claims.speaker, claims.speaker_title, claims.attribution, claims.rank_signals, claims.context, claims.cluster_key)
    IS DISTINCT FROM (EXCLUDED.sentence, EXCLUDED.score, EXCLUDED.claim_type, EXCLUDED.claim_types,
       EXCLUDED.quantities, EXCLUDED.speaker, EXCLUDED.speaker_title, EXCLUDED.attribution, EXCLUDED.rank_signals,
       EXCLUDED.context, EXCLUDED.cluster_key)
    OR claims.seen_at IS DISTINCT FROM EXCLUDED.seen_at
RETURNING claims.id
"""

# Clusters this run merged into others move wholesale to the surviving key.
APPLY_CLUSTER_REMAP = """
UPDATE claims SET cluster_key = r.new_key
FROM (SELECT DISTINCT old_key, new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s) r
WHERE claims.cluster_key = r.old_key AND r.old_key <> r.new_key
"""

# Appearances, distinct outlets (an article with no known outlet counts as its own) and the
# first appearance, for the clusters in {touched} (a table with a cluster_key column): each
# chunk's provisional clusters as it is merged, then the clusters the clustering changed.
REFRESH_CLUSTERS = f"""
WITH touched AS (
    SELECT cluster_key FROM {{touched}}
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

# The clusters the clustering changed after the chunks were merged: those its claims left
# and joined, and both sides of every remap.
RUN_TOUCHED = """
CREATE TEMP TABLE run_touched ON COMMIT DROP AS
SELECT own_cluster_key AS cluster_key FROM run_staged WHERE own_cluster_key IS DISTINCT FROM cluster_key
UNION SELECT cluster_key FROM run_staged WHERE own_cluster_key IS DISTINCT FROM cluster_key
UNION SELECT old_key FROM claim_cluster_remap WHERE run_id = %(run_id)s
UNION SELECT new_key FROM claim_cluster_remap WHERE run_id = %(run_id)s
"""

DROP_EMPTY_CLUSTERS = """
DELETE FROM claim_clusters cc
WHERE cc.cluster_key IN (SELECT cluster_key FROM run_touched)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.cluster_key = cc.cluster_key)
"""

# Whose priority may be stale once the clusters are final: the members of clusters the
# clustering changed, and of clusters this run added claims to that held earlier claims
# (their outlet counts moved after those were written). Every other new claim was written
# with its final priority.
RUN_PRIORITY_SCOPE = """
CREATE TEMP TABLE run_priority_scope ON COMMIT DROP AS
SELECT cluster_key FROM run_touched
UNION
SELECT s.cluster_key FROM run_staged s
WHERE EXISTS (SELECT 1 FROM claims c WHERE c.cluster_key = s.cluster_key AND c.first_run_id IS DISTINCT FROM s.run_id)
"""

# Every claim's standing priority (scope ""), or those of a scope (a WHERE clause on c); only
# rows whose priority or parts differ are written. The web app's re-rank after a change of
# weights runs it too (factcheck.claims.services.claims_rerank).
REFRESH_PRIORITIES = f"""
WITH p AS (
    SELECT c.id, pp.parts
    FROM claims c
    LEFT JOIN claim_clusters cc ON cc.cluster_key = c.cluster_key
    CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.rank_signals, cc.outlet_count) pp
    {{scope}}
)
UPDATE claims c SET priority = {PRIORITY}, priority_parts = {PRIORITY_PARTS}
FROM p
WHERE c.id = p.id AND (c.priority, c.priority_parts) IS DISTINCT FROM ({PRIORITY}, {PRIORITY_PARTS})
"""


ANALYZE_CLAIMS = "ANALYZE claims (id, claim_key, cluster_key, article_id)"
# Statistics of the run's scratch rows (staging, temp tables) only steer this merge's joins:
# a small sample does (ANALYZE reads 300 x target rows; the default target reads them all).
SCRATCH_STATISTICS_TARGET = 10


def analyze_scratch(conn: psycopg.Connection[Any], table_and_columns: str) -> None:
    conn.execute(f"SET LOCAL default_statistics_target = {SCRATCH_STATISTICS_TARGET}")
    conn.execute(f"ANALYZE {table_and_columns}")
    conn.execute("RESET default_statistics_target")


# "factcheck merge": one advisory lock for all runs' merges, and for the web app's re-rank
# after a change of weights (factcheck.claims.services.claims_rerank).
MERGE_LOCK_ID = 0x66AC7C4EC5


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
    with connect(dsn) as conn:
        return stage_claims(conn, rows)


class PreserializedJsonbDumper(Dumper):
    """jsonb in binary COPY from a str that already is JSON text (the staged quantities):
    the binary jsonb format is a version byte and the text."""

    format = Format.BINARY
    oid = postgres.types["jsonb"].oid

    def dump(self, obj: Any) -> bytes:
        return b"\x01" + obj.encode()


def stage_claims(conn: psycopg.Connection[Any], rows: Iterable[Sequence[Any]], columns: Sequence[str] = STAGING_COLUMNS) -> int:
    """COPY claim rows into claim_staging on an open connection (committed with it).

    Binary COPY: PostgreSQL receives numbers and arrays as they are stored rather than
    parsing text, and psycopg writes them in C (a bucket of 7,600 BBC claims: 0.42 -> 0.17 s)."""
    # By type name only (set_types below), on this connection's own adapters.
    conn.adapters.register_dumper(None, PreserializedJsonbDumper)
    count = 0
    with conn.cursor() as cursor, cursor.copy(f"COPY claim_staging ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types([STAGING_TYPES[column] for column in columns])
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def read_stored_bands(dsn: str, *, buckets: int, bucket: int) -> Iterator[tuple[Any, ...]]:
    """(claim_key, bands, sentence, quantities) of one bucket of stored claims; sentence and
    quantities only where the claim has no stored signature (bands null)."""
    with connect(dsn) as conn, conn.cursor(name=f"stored_bands_{bucket}") as cursor:
        cursor.itersize = 2000
        cursor.execute(READ_STORED_BANDS, {"buckets": buckets, "bucket": bucket})
        yield from cursor


def read_candidate_claims(dsn: str, *, run_id: int, nodes: Iterable[int]) -> dict[int, list[NodeClaim]]:
    """node -> the claims behind it, for the clustering's exact step: a claim this run
    extracted carries the run's tokens, a stored one its cluster key (its own key when the
    stored one is empty) and its stored signature (computed from its sentence if it has none)."""
    wanted = sorted(set(nodes))
    if not wanted:
        return {}
    params = {"run_id": run_id, "nodes": wanted}
    with connect(dsn) as conn:
        run_tokens = dict(conn.execute(READ_RUN_CANDIDATES, params).fetchall())
        stored = conn.execute(READ_STORED_CANDIDATES, params).fetchall()
    stored_clusters: dict[str, str] = {}
    stored_tokens: dict[str, list[str]] = {}
    for key, cluster_key, tokens, sentence, quantities in stored:
        stored_clusters[key] = cluster_key or key
        stored_tokens[key] = tokens if tokens is not None else cluster_tokens(sentence, json.loads(quantities or "[]"))
    claims: dict[int, list[NodeClaim]] = {}
    for key in sorted(run_tokens.keys() | stored_clusters.keys()):
        tokens = run_tokens[key] if key in run_tokens else stored_tokens[key]
        claims.setdefault(claim_node(key), []).append(NodeClaim(key, tokens, key in run_tokens, stored_clusters.get(key)))
    return claims


def count_claims(dsn: str) -> int:
    with connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM claims").fetchone()
    return int(row[0]) if row else 0


def clear_staging(dsn: str, *, run_id: int) -> None:
    with connect(dsn) as conn:
        for table in RUN_SCRATCH_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE run_id = %s", (run_id,))


class StagedMerge:
    """The merge of one run's staged claims into `claims`: one transaction, so readers never
    see half a run, in two steps so the first can run while Spark clusters.

        with StagedMerge(dsn, run_id=run_id) as merge:
            merge.insert_claims()      # may run in a thread while Spark works, in chunks of buckets
            staged, written = merge.finish(assigned=..., remap=...)

    insert_claims merges every staged claim under its provisional cluster (its stored one,
    else its own key): inserts, and updates of pipeline-owned columns where they differ.
    finish writes the clustering's assignments and remaps, moves the claims whose cluster
    changed, refreshes the touched clusters' statistics and the queue priorities, and
    empties the run's scratch rows. Leaving the block commits; an exception rolls back.
    Only a claim that joined another cluster is written twice, and a re-run writes nothing.
    """

    def __init__(self, dsn: str, *, run_id: int) -> None:
        self.dsn, self.run_id = dsn, run_id
        self.params = {"run_id": run_id}
        self.written: set[int] = set()
        self.staged = 0
        self.started = False
        self.analyzed = False

    def __enter__(self) -> StagedMerge:
        self.conn = connect(self.dsn)
        return self

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        try:
            if kind is None:
                self.conn.commit()
            else:
                self.conn.rollback()
        finally:
            self.conn.close()

    def insert_claims(self, *, buckets: int = 0, chosen: Iterable[int] = ()) -> None:
        """Merge staged claims under their provisional clusters: all of the run's, or, with
        `buckets`, those of the articles whose id % buckets is in `chosen` (the buckets whose
        staging has committed; each bucket once). Chunks may follow one another while Spark
        still extracts the rest."""
        conn = self.conn
        if not self.started:
            # Merges of concurrent runs take turns: each rewrites cluster statistics and
            # priorities across many rows, and two at once could deadlock on them.
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MERGE_LOCK_ID,))
            # The merge sorts a run's claims by key and groups them by cluster: in memory, not on disk.
            conn.execute("SET LOCAL work_mem = '64MB'")
            # Foreign keys checked as each statement ends, not all at COMMIT: the checks of the
            # inserted claims then run in this step, which overlaps the Spark job.
            conn.execute("SET CONSTRAINTS ALL IMMEDIATE")
            for table, columns in SCRATCH_JOIN_COLUMNS.items():
                analyze_scratch(conn, f"{table} ({columns})")
            conn.execute(RUN_STAGED.format(table="run_staged") + " WITH NO DATA", {**self.params, "buckets": -1, "chosen": []})
            self.started = True
        else:
            analyze_scratch(conn, f"claim_staging ({SCRATCH_JOIN_COLUMNS['claim_staging']})")
        conn.execute(RUN_STAGED.format(table="run_chunk"), {**self.params, "buckets": buckets, "chosen": sorted(chosen)})
        analyze_scratch(conn, "run_chunk (claim_key, article_id, cluster_key)")
        row = conn.execute("SELECT count(*) FROM run_chunk").fetchone()
        self.staged += int(row[0]) if row else 0
        self.written.update(claim_id for (claim_id,) in conn.execute(MERGE_STAGED_CLAIMS, self.params))
        if not self.analyzed:
            # The claims table may have grown from nothing in this transaction (a first run):
            # planned on its old statistics, the statements after this nested loops over every
            # claim (22 s of REFRESH_PRIORITIES in one bench run instead of 0.4 s). Once is
            # enough: from a chunk's worth of rows on, the plans are the same.
            conn.execute(ANALYZE_CLAIMS)
            self.analyzed = True
        conn.execute(UPSERT_SIGNATURES)
        conn.execute(REFRESH_CLUSTERS.format(touched="run_chunk"))
        conn.execute("INSERT INTO run_staged SELECT * FROM run_chunk")
        conn.execute("DROP TABLE run_chunk")

    def finish(self, *, assigned: Iterable[tuple[str, str]] = (), remap: Iterable[tuple[str, str]] = ()) -> tuple[int, int]:
        """Returns (distinct staged claims, claims inserted or changed)."""
        conn, run_id = self.conn, self.run_id
        if not self.started:
            self.insert_claims()
        analyze_scratch(conn, "run_staged (claim_key, article_id, cluster_key)")
        with conn.cursor() as cursor, cursor.copy("COPY claim_cluster_assignments (run_id, claim_key, cluster_key) FROM STDIN") as copy:
            for key, cluster_key in assigned:
                copy.write_row((run_id, key, cluster_key))
        with conn.cursor() as cursor, cursor.copy("COPY claim_cluster_remap (run_id, old_key, new_key) FROM STDIN") as copy:
            for old_key, new_key in remap:
                copy.write_row((run_id, old_key, new_key))
        for table in ("claim_cluster_assignments", "claim_cluster_remap"):
            analyze_scratch(conn, f"{table} ({SCRATCH_JOIN_COLUMNS[table]})")
        conn.execute(FINAL_CLUSTER_KEYS, self.params)
        self.written.update(claim_id for (claim_id,) in conn.execute(UPDATE_CLUSTER_KEYS))
        conn.execute(APPLY_CLUSTER_REMAP, self.params)
        conn.execute(RUN_TOUCHED, self.params)
        conn.execute(REFRESH_CLUSTERS.format(touched="run_touched"))
        conn.execute(DROP_EMPTY_CLUSTERS)
        conn.execute("ANALYZE claim_clusters (cluster_key)")
        self.refresh_priorities()
        for table in RUN_SCRATCH_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE run_id = %s", (run_id,))
        return self.staged, len(self.written)


    def refresh_priorities(self) -> None:
        """The standing priorities the run's clustering can have changed; all of them when
        the weights changed since the stored priorities were computed (a re-rank that never
        ran). Then the weights' version is recorded as the basis. (The version is read before
        the refresh: weights saved in between make the next merge refresh everything again.)"""
        conn = self.conn
        basis = conn.execute("SELECT weights_version FROM claim_priority_basis ORDER BY id LIMIT 1").fetchone()
        version_row = conn.execute(WEIGHTS_VERSION).fetchone()
        self.params["weights_version"] = version_row[0] if version_row else 0
        if basis is not None and basis[0] != self.params["weights_version"]:
            conn.execute(REFRESH_PRIORITIES.format(scope=""), self.params)
        else:
            conn.execute(RUN_PRIORITY_SCOPE)
            conn.execute(REFRESH_PRIORITIES.format(scope="WHERE c.cluster_key IN (SELECT cluster_key FROM run_priority_scope)"), self.params)
        conn.execute("DELETE FROM claim_priority_basis")
        conn.execute("INSERT INTO claim_priority_basis (weights_version) VALUES (%(weights_version)s)", self.params)


def merge_staging(
    dsn: str, *, run_id: int, assigned: Iterable[tuple[str, str]] = (), remap: Iterable[tuple[str, str]] = ()
) -> tuple[int, int]:
    """StagedMerge in one go: (distinct staged claims, claims inserted or changed)."""
    with StagedMerge(dsn, run_id=run_id) as merge:
        merge.insert_claims()
        return merge.finish(assigned=assigned, remap=remap)


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
