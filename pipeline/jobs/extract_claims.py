"""Spark application: a run's articles in PostgreSQL -> candidate claims in PostgreSQL.

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

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pipeline import db, udfs
from pipeline.schemas import ARTICLE_SCHEMA, BUCKET_SCHEMA, COUNT_SCHEMA
from pipeline.transforms import claims_from_sentences, explode_sentences

ARTICLES_PER_PARTITION = 100


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-id", type=int, required=True)
    parser.add_argument("--database-url", default=os.environ.get("PIPELINE_DATABASE_URL", ""))
    parser.add_argument("--read-partitions", type=int, default=0, help="0: twice the default parallelism")
    args = parser.parse_args(argv)
    if not args.database_url:
        parser.error("no database: set PIPELINE_DATABASE_URL or pass --database-url")
    return args


def read_partitions_for(article_count: int, parallelism: int) -> int:
    """Enough partitions to keep every core busy, but no near-empty ones: each costs a
    Python worker and a database connection."""
    return max(1, min(parallelism * 2, math.ceil(article_count / ARTICLES_PER_PARTITION)))


def read_articles(spark: SparkSession, *, dsn: str, run_id: int, partitions: int) -> DataFrame:
    """Each Spark task streams one id-bucket of the run's articles straight from PostgreSQL."""
    buckets_df = spark.createDataFrame([(bucket,) for bucket in range(partitions)], BUCKET_SCHEMA).repartition(partitions)
    return buckets_df.mapInPandas(udfs.make_article_reader(dsn, run_id, partitions), ARTICLE_SCHEMA)


def write_claims(claims_df: DataFrame, *, dsn: str, run_id: int) -> int:
    counts_df = claims_df.mapInPandas(udfs.make_staging_writer(dsn, run_id), COUNT_SCHEMA)
    return int(counts_df.agg(F.sum("rows")).first()[0] or 0)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    dsn, run_id = args.database_url, args.run_id
    timings: dict[str, float] = {}
    started = time.perf_counter()

    spark = SparkSession.builder.appName(f"factcheck-run-{run_id}").getOrCreate()
    timings["spark_start"] = round(time.perf_counter() - started, 3)
    partitions = args.read_partitions or read_partitions_for(
        db.count_run_articles(dsn, run_id=run_id), spark.sparkContext.defaultParallelism
    )

    db.update_run(dsn, run_id=run_id, stage="extracting", progress=0.1)
    step = time.perf_counter()
    articles_df = read_articles(spark, dsn=dsn, run_id=run_id, partitions=partitions)
    sentences_df = explode_sentences(articles_df).persist(StorageLevel.MEMORY_AND_DISK)
    sentence_count = sentences_df.count()
    timings["extract"] = round(time.perf_counter() - step, 3)
    db.update_run(dsn, run_id=run_id, stage="scoring", progress=0.4, sentences_count=sentence_count)

    db.update_run(dsn, run_id=run_id, stage="writing", progress=0.5)
    step = time.perf_counter()
    db.clear_staging(dsn, run_id=run_id)
    write_claims(claims_from_sentences(sentences_df), dsn=dsn, run_id=run_id)
    staged, written = db.merge_staging(dsn, run_id=run_id)
    timings["load"] = round(time.perf_counter() - step, 3)
    timings["total"] = round(time.perf_counter() - started, 3)

    db.update_run(
        dsn,
        run_id=run_id,
        stage="done",
        progress=1.0,
        sentences_count=sentence_count,
        claims_count=staged,
        claims_written=written,
        timings=timings,
    )
    print(f"run {run_id}: {sentence_count} sentences, {staged} candidate claims, {written} written", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
