"""Spark application: a run's articles in PostgreSQL -> claims in PostgreSQL.

    spark-submit [--master ...] pipeline/jobs/extract_claims.py --run-id N

The database comes from PIPELINE_DATABASE_URL (the Celery task sets it). main() is
extract -> pure transforms -> load; the load is idempotent by construction (staging
table + one INSERT ... ON CONFLICT keyed by the deterministic claim key).

One Spark job does the work: executors extract and stage the claims and emit their MinHash
band memberships, the band shuffle finds candidate pairs, and the driver checks the few
candidates exactly (pipeline.nlp.clustering.resolve_clusters) while PostgreSQL merges.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pipeline import db, udfs
from pipeline.nlp.checkworthiness import read_artifact
from pipeline.nlp.clustering import resolve_clusters
from pipeline.schemas import MEMBERSHIP_SCHEMA
from pipeline.transforms import candidate_pairs

ARTICLES_PER_PARTITION = 100
CLAIMS_PER_PARTITION = 20000


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-id", type=int, required=True)
    parser.add_argument("--database-url", default=os.environ.get("PIPELINE_DATABASE_URL", ""))
    parser.add_argument("--read-partitions", type=int, default=0, help="0: from the article count and parallelism")
    args = parser.parse_args(argv)
    if not args.database_url:
        parser.error("no database: set PIPELINE_DATABASE_URL or pass --database-url")
    return args


def partitions_for(rows: int, per_partition: int, parallelism: int) -> int:
    """Enough partitions to keep every core busy, but no near-empty ones: each costs a
    Python worker and a database connection."""
    return max(1, min(parallelism * 2, math.ceil(rows / per_partition)))


def bucket_frame(spark: SparkSession, partitions: int) -> DataFrame:
    """One bucket number per partition, so each task reads exactly one bucket: spark.range
    places them without a shuffle (a repartition of a few rows can leave a core idle)."""
    return spark.range(0, partitions, 1, numPartitions=partitions).select(F.col("id").alias("bucket"))


def extract_and_stage(
    spark: SparkSession, *, dsn: str, run_id: int, partitions: int, model: Any,
    sentence_counter: Any, claim_counter: Any, staged_buckets: Any,
) -> DataFrame:
    """Each Spark task streams one id-bucket of the run's articles straight from PostgreSQL,
    extracts their claims and COPYs them into the run's staging rows, all in the same Python
    worker; what comes back is the band memberships clustering needs. Neither article texts
    nor claim rows make the round trip through the JVM."""
    stager = udfs.make_claim_stager(
        model, dsn, run_id, partitions, sentence_counter=sentence_counter, claim_counter=claim_counter, staged_buckets=staged_buckets,
    )
    return bucket_frame(spark, partitions).mapInArrow(stager, MEMBERSHIP_SCHEMA)


def stored_memberships(spark: SparkSession, *, dsn: str, partitions: int) -> DataFrame:
    """The stored claims' band memberships, one id bucket per task."""
    return bucket_frame(spark, partitions).mapInArrow(udfs.make_stored_memberships_reader(dsn, partitions), MEMBERSHIP_SCHEMA)


def merge_as_staged(merge: db.StagedMerge, staged_buckets: Any, buckets: int, abandoned: threading.Event) -> float | None:
    """Merge the staged claims under provisional clusters (StagedMerge.insert_claims) bucket
    by bucket, as each bucket's staging commits: PostgreSQL's share of the work runs beside
    the extraction of the other buckets and the band shuffle, not after them. Returns when
    the last bucket was staged (perf_counter), or None if the job was abandoned."""
    merged: set[int] = set()
    staged_at = None
    while len(merged) < buckets:
        ready = staged_buckets.value - merged
        if ready:
            if len(merged | ready) == buckets:
                staged_at = time.perf_counter()
            merge.insert_claims(buckets=buckets, chosen=ready)
            merged |= ready
        elif abandoned.wait(0.02):
            return None
    return staged_at


def configure_session(spark: SparkSession) -> None:
    """Session settings for this job that an explicit --conf still overrides."""
    configured = spark.sparkContext.getConf().toDebugString()
    # The band shuffle's partitions: one per core, so the candidate search runs in one wave
    # (BBC bench, paired runs: 13.7 -> 13.2 s of work against two per core); the default 200
    # on a 2-core box is mostly scheduling overhead. An explicit --conf still wins.
    if "spark.sql.shuffle.partitions" not in configured:
        spark.conf.set("spark.sql.shuffle.partitions", str(max(2, spark.sparkContext.defaultParallelism)))
    # Adaptive execution re-plans at every exchange, one Spark job per query stage: for this
    # job's one small shuffle that costs more than it saves. An explicit
    # --conf spark.sql.adaptive.enabled=true still wins.
    if "spark.sql.adaptive.enabled" not in configured:
        spark.conf.set("spark.sql.adaptive.enabled", "false")
    # In local mode the JVM lives for one run and sees each query once: compiling whole-stage
    # code (Janino, in a cold JVM) cost more than interpreting these small stages (BBC bench:
    # work 17.9 -> 16.6 s, paired runs). A cluster, with long-lived executors and big runs,
    # keeps the default, and an explicit --conf still wins.
    if spark.sparkContext.master.startswith("local") and "spark.sql.codegen.wholeStage" not in configured:
        spark.conf.set("spark.sql.codegen.wholeStage", "false")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    dsn, run_id = args.database_url, args.run_id
    timings: dict[str, float] = {}
    started = time.perf_counter()

    spark = SparkSession.builder.appName(f"factcheck-run-{run_id}").getOrCreate()
    configure_session(spark)
    parallelism = spark.sparkContext.defaultParallelism
    model = spark.sparkContext.broadcast(read_artifact())
    timings["spark_start"] = round(time.perf_counter() - started, 3)

    db.update_run(dsn, run_id=run_id, stage="extracting", progress=0.1)
    step = time.perf_counter()
    db.clear_staging(dsn, run_id=run_id)
    buckets = args.read_partitions or partitions_for(db.count_run_articles(dsn, run_id=run_id), ARTICLES_PER_PARTITION, parallelism)
    context = spark.sparkContext
    sentence_counter, claim_counter = context.accumulator(0), context.accumulator(0)
    staged_buckets = context.accumulator(set(), udfs.BucketSet())
    memberships = extract_and_stage(
        spark, dsn=dsn, run_id=run_id, partitions=buckets, model=model,
        sentence_counter=sentence_counter, claim_counter=claim_counter, staged_buckets=staged_buckets,
    )
    stored = db.count_claims(dsn)
    if stored:
        memberships = memberships.unionByName(stored_memberships(spark, dsn=dsn, partitions=partitions_for(stored, CLAIMS_PER_PARTITION, parallelism)))

    abandoned = threading.Event()
    with db.StagedMerge(dsn, run_id=run_id) as merge, ThreadPoolExecutor(max_workers=1) as background:
        try:
            # One Spark job: extraction and staging, then the band shuffle. As each bucket is
            # staged, PostgreSQL merges its claims under provisional clusters, beside the
            # extraction of the others, the shuffle and the exact step here.
            inserting = background.submit(merge_as_staged, merge, staged_buckets, buckets, abandoned)
            pairs = sorted({(row.src, row.dst) for row in candidate_pairs(memberships).collect()})
            db.update_run(dsn, run_id=run_id, stage="clustering", progress=0.6, sentences_count=sentence_counter.value, claims_count=claim_counter.value)
            candidates = db.read_candidate_claims(dsn, run_id=run_id, nodes=chain.from_iterable(pairs))
            clustering = resolve_clusters(pairs, candidates)
        finally:
            abandoned.set()
        staged_at = inserting.result()
        timings["extract"] = round((staged_at or time.perf_counter()) - step, 3)
        timings["cluster"] = round(time.perf_counter() - (staged_at or step), 3)

        db.update_run(dsn, run_id=run_id, stage="writing", progress=0.8)
        step = time.perf_counter()
        staged, written = merge.finish(assigned=clustering.assigned.items(), remap=clustering.remap)
    timings["load"] = round(time.perf_counter() - step, 3)
    timings["total"] = round(time.perf_counter() - started, 3)

    db.update_run(dsn, run_id=run_id, stage="done", progress=1.0, claims_count=staged, claims_written=written, timings=timings)
    print(f"run {run_id}: {sentence_counter.value} sentences, {staged} claims, {written} written, {len(clustering.remap)} cluster merges", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
