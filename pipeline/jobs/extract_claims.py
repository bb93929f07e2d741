"""Spark application: a run's articles in PostgreSQL -> claims in PostgreSQL.

    spark-submit [--master ...] pipeline/jobs/extract_claims.py --run-id N

The database comes from PIPELINE_DATABASE_URL (the Celery task sets it). main() is
extract -> pure transforms -> load; the load is idempotent by construction (staging
table + one INSERT ... ON CONFLICT keyed by the deterministic claim key).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pipeline import db, udfs
from pipeline.nlp.checkworthiness import read_artifact
from pipeline.schemas import CLUSTER_NODE_SCHEMA, STORED_NODE_SCHEMA
from pipeline.transforms import assign_clusters

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


def read_extract_and_stage(
    spark: SparkSession, *, dsn: str, run_id: int, partitions: int, model: Any, sentence_counter: Any, claim_counter: Any
) -> DataFrame:
    """Each Spark task streams one id-bucket of the run's articles straight from PostgreSQL,
    extracts their claims and COPYs them into the run's staging rows, all in the same Python
    worker; what comes back is what clustering needs (claim_key, tokens, bands). Neither
    article texts nor claim rows make the round trip through the JVM. The same claims as
    `extract_claims(read articles)`, fused."""
    reader = udfs.make_article_reader(dsn, run_id, partitions)
    stager = udfs.make_claim_stager(model, dsn, run_id, sentence_counter=sentence_counter, claim_counter=claim_counter)
    return bucket_frame(spark, partitions).mapInPandas(lambda batches: stager(reader(batches)), CLUSTER_NODE_SCHEMA)


def read_stored_nodes(spark: SparkSession, *, dsn: str, partitions: int) -> DataFrame:
    """The stored claims' keys, signatures and clusters, one id bucket per task."""
    return bucket_frame(spark, partitions).mapInPandas(udfs.make_stored_nodes_reader(dsn, partitions), STORED_NODE_SCHEMA)


def configure_session(spark: SparkSession) -> None:
    """Session settings for this job that an explicit --conf still overrides."""
    configured = spark.sparkContext.getConf().toDebugString()
    # 200 shuffle partitions (the default) on a 2-core box is mostly scheduling overhead;
    # an explicit --conf spark.sql.shuffle.partitions=... still wins.
    if "spark.sql.shuffle.partitions" not in configured:
        spark.conf.set("spark.sql.shuffle.partitions", str(max(2, spark.sparkContext.defaultParallelism * 2)))
    # Adaptive execution re-plans at every exchange, one Spark job per query stage: for this
    # job's small shuffles that cost more than it saved (clustering 5.6 s -> 3.6 s without it,
    # same clusters). An explicit --conf spark.sql.adaptive.enabled=true still wins.
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
    article_partitions = args.read_partitions or partitions_for(db.count_run_articles(dsn, run_id=run_id), ARTICLES_PER_PARTITION, parallelism)
    sentence_counter, claim_counter = spark.sparkContext.accumulator(0), spark.sparkContext.accumulator(0)
    run_df = read_extract_and_stage(
        spark, dsn=dsn, run_id=run_id, partitions=article_partitions, model=model,
        sentence_counter=sentence_counter, claim_counter=claim_counter,
    ).persist(StorageLevel.MEMORY_AND_DISK)
    run_df.count()
    timings["extract"] = round(time.perf_counter() - step, 3)

    db.update_run(dsn, run_id=run_id, stage="clustering", progress=0.5, sentences_count=sentence_counter.value, claims_count=claim_counter.value)
    step = time.perf_counter()
    with db.StagedMerge(dsn, run_id=run_id) as merge, ThreadPoolExecutor(max_workers=1) as background:
        # PostgreSQL merges the staged claims under provisional clusters while Spark clusters
        # them: the merge's one core and the clustering's short jobs overlap.
        inserting = background.submit(merge.insert_claims)
        stored = db.count_claims(dsn)
        stored_df = read_stored_nodes(spark, dsn=dsn, partitions=partitions_for(stored, CLAIMS_PER_PARTITION, parallelism)) if stored else None
        clustering = assign_clusters(run_df, stored_df)
        run_df.unpersist()
        timings["cluster"] = round(time.perf_counter() - step, 3)

        db.update_run(dsn, run_id=run_id, stage="writing", progress=0.7)
        step = time.perf_counter()
        inserting.result()
        staged, written = merge.finish(assigned=clustering.assigned.items(), remap=clustering.remap)
    timings["load"] = round(time.perf_counter() - step, 3)
    timings["total"] = round(time.perf_counter() - started, 3)

    db.update_run(dsn, run_id=run_id, stage="done", progress=1.0, claims_count=staged, claims_written=written, timings=timings)
    print(f"run {run_id}: {sentence_counter.value} sentences, {staged} claims, {written} written, {len(clustering.remap)} cluster merges", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
