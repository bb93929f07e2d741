"""Spark application: a run's articles in PostgreSQL -> claims in PostgreSQL.

    spark-submit [--master ...] pipeline/jobs/extract_claims.py --run-id N --match-top K --match-candidates N --match-min-score P
        [--model-dir DIR --model-version-id V]

--model-dir is the active check-worthiness model version's artifact directory (the web app
passes it; none: the models shipped in pipeline/models/), and every claim the run writes
records --model-version-id as the version that scored it.

The database comes from PIPELINE_DATABASE_URL (the Celery task sets it). process_run reads
top to bottom as the data flows, with one branch:

    stage_claims (each task: read its articles -> extract their claims -> write them to
    staging, binary COPY: one Python worker, transforms.stage_claims)
    -> band_memberships (+ the stored claims sharing a band key) -> candidate_pairs
    -> resolve_clusters (exact, on the driver) -> merge (one transaction, pipeline.merge)
    -> write_matches (the merge has given the claims ids)
    and, in a thread from candidate_pairs on (it needs the texts, not the ids):
       claim_texts -> match_claims (against the library's index: kept between runs,
       broadcast) -> collect_matches

Every step reads and writes through a RunStore (pipeline.run_store): PostgreSQL here, inline
articles in the class-archive warm-up and the tests. The load is idempotent by construction:
staging rows keyed by the deterministic claim key, and one INSERT ... ON CONFLICT that writes
only what differs and never a reviewer's column.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from pyspark.sql import DataFrame, SparkSession

from pipeline import db
from pipeline.match_library import prepare_library
from pipeline.nlp.checkworthiness import read_artifact
from pipeline.nlp.clustering import Clustering, distinct_pairs, resolve_clusters
from pipeline.nlp.contestability import ArtifactError, load_model
from pipeline.run_store import RunStore
from pipeline.task_profile import RecordsParam, summarise, table
from pipeline.transforms import (
    MatchRow,
    article_dates,
    band_memberships,
    candidate_pairs,
    claim_texts,
    collect_matches,
    match_claims,
    stage_claims,
    stored_memberships,
)

ARTICLES_PER_PARTITION = 100


@dataclass(frozen=True)
class MatchParams:
    """How the run matches its claims against the library: matches stored per claim, BM25
    candidates re-ranked per claim and the lowest match probability stored. The web app
    passes its FACTCHECK_MATCH_TOP, FACTCHECK_MATCH_CANDIDATES and FACTCHECK_MATCH_MIN_SCORE
    (factcheck.runs.spark), the settings its own re-match of the queue uses, so the job keeps
    no defaults of its own."""

    top: int
    candidates: int
    min_score: float


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-id", type=int, required=True)
    parser.add_argument("--database-url", default=os.environ.get("PIPELINE_DATABASE_URL", ""))
    parser.add_argument("--read-partitions", type=int, default=0, help="0: from the article count and parallelism")
    parser.add_argument("--match-top", type=int, required=True, metavar="K", help="library matches stored per claim")
    parser.add_argument("--match-candidates", type=int, required=True, metavar="N", help="BM25 candidates re-ranked per claim")
    parser.add_argument("--match-min-score", type=float, required=True, metavar="P", help="the lowest match probability stored (0-1)")
    parser.add_argument("--model-dir", default="", help="the active model version's artifact directory (default: the shipped models)")
    parser.add_argument("--model-version-id", type=int, default=0, metavar="V", help="the model version the claims record (0: none)")
    args = parser.parse_args(argv)
    if not args.database_url:
        parser.error("no database: set PIPELINE_DATABASE_URL or pass --database-url")
    if args.match_top < 1 or args.match_candidates < 1:
        parser.error("--match-top and --match-candidates must be at least 1")
    if not 0 <= args.match_min_score <= 1:
        parser.error("--match-min-score must lie between 0 and 1")
    if args.model_dir and not os.path.isdir(args.model_dir):
        parser.error(f"--model-dir: no directory {args.model_dir}")
    if args.model_version_id < 0:
        parser.error("--model-version-id must be a version's id, or 0 for none")
    return args


def partitions_for(rows: int, per_partition: int, parallelism: int) -> int:
    """Enough partitions to keep every core busy, but no near-empty ones: each costs a
    Python worker and a database connection."""
    return max(1, min(parallelism * 2, math.ceil(rows / per_partition)))


def configure_session(spark: SparkSession) -> None:
    """Session settings for this job that an explicit --conf still overrides (what each buys:
    docs/benchmarks.md, "The pipeline's mechanisms")."""
    configured = spark.sparkContext.getConf().toDebugString()
    # The band shuffle's partitions: one per core, so the candidate search runs in one wave;
    # the default 200 on a small machine is mostly scheduling overhead.
    if "spark.sql.shuffle.partitions" not in configured:
        spark.conf.set("spark.sql.shuffle.partitions", str(max(2, spark.sparkContext.defaultParallelism)))
    # Adaptive execution re-plans at every exchange, one Spark job per query stage: for this
    # job's one small shuffle that costs more than it saves.
    if "spark.sql.adaptive.enabled" not in configured:
        spark.conf.set("spark.sql.adaptive.enabled", "false")


@dataclass(frozen=True)
class RunSummary:
    sentences: int
    claims: int
    staged: int
    written: int
    clustering: Clustering
    timings: dict[str, float]
    matches: int = 0


Progress = Callable[..., None]


def no_progress(**fields: Any) -> None:
    """process_run's default: nobody to tell."""


def compute_matches(
    spark: SparkSession, store: RunStore, claims_df: DataFrame, matching: MatchParams
) -> tuple[list[MatchRow], dict[str, float]] | None:
    """The run's claims' matches against the library (rows for store.write_matches, and
    timings: match_index to have the index, match to have the rows), or None for an empty
    library, which costs one query. Pure Spark and reads: process_run runs it in a thread
    alongside the clustering and the merge."""
    started = time.perf_counter()
    library = store.read_library()
    if not library:
        return None
    # The index kept for this library state (built here, once, when there is none), as
    # compact bytes: each Python worker reads it once (pipeline.match_library).
    prepared = prepare_library(store, library, matching.candidates)
    index_seconds = round(time.perf_counter() - started, 3)
    library_ref = spark.sparkContext.broadcast(prepared)
    rows = collect_matches(match_claims(claim_texts(claims_df, article_dates(spark, store)), library_ref, matching.top, matching.min_score))
    library_ref.destroy()
    return rows, {"match_index": index_seconds, "match": round(time.perf_counter() - started, 3)}


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Python's cycle collector paused: the clustering builds millions of small objects that
    live until it ends (a token list for each candidate claim, its claims, the pairs' edges),
    and while they grow every full collection walks all of them again. None of them form
    cycles; reference counting frees them as ever, and the collector runs again after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def process_run(
    spark: SparkSession,
    store: RunStore,
    *,
    model: Any,
    partitions: int,
    articles: int = 0,
    matching: MatchParams | None = None,
    progress: Progress = no_progress,
    ranker: Any = None,
) -> RunSummary:
    """The job, top to bottom. `model`: the check-worthiness artifact (or its broadcast);
    `partitions`: the article id buckets read in parallel; `articles`: how many the run has;
    `matching`: how claims are matched against the library (None: the run stores no matches,
    as the class-archive warm-up, whose library is empty anyway); `progress(stage=..., ...)`
    is told as each stage starts (the sink reports the extraction's own progress,
    RunStore.write_claims); `ranker`: the contestability model (or its broadcast; None: the
    shipped one)."""
    timings: dict[str, float] = {}
    started, stage_started = time.perf_counter(), time.time()
    sentence_counter = spark.sparkContext.accumulator(0)
    task_records = spark.sparkContext.accumulator([], RecordsParam())

    claims_df = stage_claims(spark, store, partitions, model, sentence_counter, ranker, task_records).cache()
    claims = claims_df.count()
    timings["extract"] = round(time.perf_counter() - started, 3)
    # Where the stage's time went, task by task (docs/benchmarks.md, "Where a run's time goes").
    timings.update(summarise(task_records.value, stage_started=stage_started, stage_ended=time.time()))
    for line in table(task_records.value):
        print(f"extract: {line}", flush=True)

    progress(stage="clustering", progress=0.6, articles_done=articles, sentences_count=sentence_counter.value, claims_count=claims)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="match") as background:
        # Matching needs the claims' texts, not their ids, so its Spark job runs while the
        # driver resolves clusters and PostgreSQL merges, when the executors' cores are mostly
        # idle; it starts after the clustering's own Spark job, whose tasks it would only slow
        # (docs/benchmarks.md). Its rows are stored once the merge has given the claims ids.
        step = time.perf_counter()
        with cycle_collection_paused():
            memberships_df = band_memberships(claims_df).unionByName(stored_memberships(spark, store))
            # As Arrow columns, not Row objects: at ten times the corpus the pairs run to millions
            # and building a Row for each cost the driver more than the shuffle that found them.
            found = candidate_pairs(memberships_df).toArrow()
            pairs = distinct_pairs(found.column("src").to_numpy(), found.column("dst").to_numpy())
            timings["cluster.pairs"] = round(time.perf_counter() - step, 3)
            pending = background.submit(compute_matches, spark, store, claims_df, matching) if matching is not None else None
            part = time.perf_counter()
            candidates = store.read_candidate_claims(np.unique(pairs).tolist())
            timings["cluster.read"] = round(time.perf_counter() - part, 3)
            part = time.perf_counter()
            clustering = resolve_clusters(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), strict=True), candidates)
            timings["cluster.resolve"] = round(time.perf_counter() - part, 3)
        timings["cluster"] = round(time.perf_counter() - step, 3)

        progress(stage="writing", progress=0.8)
        step = time.perf_counter()
        staged, written = store.merge(clustering, timings)
        timings["load"] = round(time.perf_counter() - step, 3)

        step = time.perf_counter()
        found = pending.result() if pending is not None else None
        timings["match_wait"] = round(time.perf_counter() - step, 3)

    matches = 0
    if found is not None:
        # Stored once the merge has given the run's claims their ids.
        rows, match_timings = found
        step = time.perf_counter()
        matches = store.write_matches(rows)
        timings.update(match_timings, match_store=round(time.perf_counter() - step, 3))
        timings["match"] = round(match_timings["match"] + timings["match_store"], 3)
    claims_df.unpersist()
    return RunSummary(sentence_counter.value, claims, staged, written, clustering, timings, matches)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    dsn, run_id = args.database_url, args.run_id
    started = time.perf_counter()
    spark = SparkSession.builder.appName(f"factcheck-run-{run_id}").getOrCreate()
    configure_session(spark)
    model = spark.sparkContext.broadcast(read_artifact())
    try:
        ranker = spark.sparkContext.broadcast(load_model(args.model_dir or None))
    except ArtifactError as error:
        print(f"run {run_id}: {error}", file=sys.stderr, flush=True)
        spark.stop()
        return 2
    spark_start = round(time.perf_counter() - started, 3)

    def progress(**fields: Any) -> None:
        db.update_run(dsn, run_id=run_id, **fields)

    # A failed earlier attempt's rows would be merged with this one's: none are left, and
    # its counts start again.
    db.clear_staging(dsn, run_id=run_id)
    articles = db.count_run_articles(dsn, run_id=run_id)
    progress(stage="extracting", progress=0.1, articles_done=0, sentences_count=0, claims_count=0)
    partitions = args.read_partitions or partitions_for(articles, ARTICLES_PER_PARTITION, spark.sparkContext.defaultParallelism)
    matching = MatchParams(top=args.match_top, candidates=args.match_candidates, min_score=args.match_min_score)
    store = db.PostgresRun(dsn, run_id, model_version_id=args.model_version_id or None)
    run = process_run(
        spark, store, model=model, partitions=partitions, articles=articles, matching=matching, progress=progress, ranker=ranker
    )

    timings = {"spark_start": spark_start, **run.timings, "total": round(time.perf_counter() - started, 3)}
    progress(stage="done", progress=1.0, claims_count=run.staged, claims_written=run.written, timings=timings)
    print(
        f"run {run_id}: {run.sentences} sentences, {run.staged} claims, {run.written} written, {len(run.clustering.remap)} cluster merges",
        flush=True,
    )
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
