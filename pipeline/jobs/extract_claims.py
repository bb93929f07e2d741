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
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pipeline import db, udfs
from pipeline.nlp.checkworthiness import read_artifact
from pipeline.schemas import CLAIM_SCHEMA, COUNT_SCHEMA, EXISTING_CLAIM_SCHEMA
from pipeline.transforms import assign_clusters, to_staging_rows, with_cluster_keys

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


def read_and_extract(spark: SparkSession, *, dsn: str, run_id: int, partitions: int, model: Any, sentence_counter: Any) -> DataFrame:
    """Each Spark task streams one id-bucket of the run's articles straight from PostgreSQL
    and extracts its claims in the same Python worker: article texts never make the
    round trip through the JVM. The same as `extract_claims(read articles)`, fused."""
    reader = udfs.make_article_reader(dsn, run_id, partitions)
    extractor = udfs.make_claim_extractor(model, sentence_counter)
    return bucket_frame(spark, partitions).mapInPandas(lambda batches: extractor(reader(batches)), CLAIM_SCHEMA)


def read_existing_claims(spark: SparkSession, *, dsn: str, partitions: int) -> DataFrame:
    return bucket_frame(spark, partitions).mapInPandas(udfs.make_existing_claims_reader(dsn, partitions), EXISTING_CLAIM_SCHEMA)


def write_claims(claims_df: DataFrame, *, dsn: str, run_id: int) -> int:
    counts_df = claims_df.mapInPandas(udfs.make_staging_writer(dsn, run_id), COUNT_SCHEMA)
    return int(counts_df.agg(F.sum("rows")).first()[0] or 0)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    dsn, run_id = args.database_url, args.run_id
    timings: dict[str, float] = {}
    started = time.perf_counter()

    spark = SparkSession.builder.appName(f"factcheck-run-{run_id}").getOrCreate()
    parallelism = spark.sparkContext.defaultParallelism
    # 200 shuffle partitions (the default) on a 2-core box is mostly scheduling overhead;
    # an explicit --conf spark.sql.shuffle.partitions=... still wins.
    if "spark.sql.shuffle.partitions" not in spark.sparkContext.getConf().toDebugString():
        spark.conf.set("spark.sql.shuffle.partitions", str(max(2, parallelism * 2)))
    model = spark.sparkContext.broadcast(read_artifact())
    timings["spark_start"] = round(time.perf_counter() - started, 3)

    db.update_run(dsn, run_id=run_id, stage="extracting", progress=0.1)
    step = time.perf_counter()
    article_partitions = args.read_partitions or partitions_for(db.count_run_articles(dsn, run_id=run_id), ARTICLES_PER_PARTITION, parallelism)
    sentence_counter = spark.sparkContext.accumulator(0)
    claims_df = read_and_extract(
        spark, dsn=dsn, run_id=run_id, partitions=article_partitions, model=model, sentence_counter=sentence_counter
    ).persist(StorageLevel.MEMORY_AND_DISK)
    claim_count = claims_df.count()
    timings["extract"] = round(time.perf_counter() - step, 3)

    db.update_run(dsn, run_id=run_id, stage="clustering", progress=0.5, sentences_count=sentence_counter.value, claims_count=claim_count)
    step = time.perf_counter()
    existing_partitions = partitions_for(db.count_claims(dsn), CLAIMS_PER_PARTITION, parallelism)
    existing_df = read_existing_claims(spark, dsn=dsn, partitions=existing_partitions).transform(with_cluster_keys)
    clustered_df, remap = assign_clusters(claims_df, existing_df)
    claims_df.unpersist()  # the clustering's cached nodes hold the run's claims from here on
    timings["cluster"] = round(time.perf_counter() - step, 3)

    db.update_run(dsn, run_id=run_id, stage="writing", progress=0.7)
    step = time.perf_counter()
    db.clear_staging(dsn, run_id=run_id)
    write_claims(to_staging_rows(clustered_df), dsn=dsn, run_id=run_id)
    db.write_cluster_remap(dsn, run_id=run_id, pairs=remap)
    staged, written = db.merge_staging(dsn, run_id=run_id)
    timings["load"] = round(time.perf_counter() - step, 3)
    timings["total"] = round(time.perf_counter() - started, 3)

    db.update_run(dsn, run_id=run_id, stage="done", progress=1.0, claims_count=staged, claims_written=written, timings=timings)
    print(f"run {run_id}: {sentence_counter.value} sentences, {staged} claims, {written} written, {len(remap)} cluster merges", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
