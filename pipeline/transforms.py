"""The claim-extraction job's steps as DataFrame -> DataFrame functions, and the readers and
the sink that begin and end them (pipeline.jobs.extract_claims.process_run chains them)."""

from __future__ import annotations

from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from pipeline import udfs
from pipeline.run_store import RunStore
from pipeline.schemas import (
    ARTICLE_DATE_SCHEMA,
    ARTICLE_SCHEMA,
    CANDIDATE_SCHEMA,
    CLAIM_SCHEMA,
    CLAIM_TEXT_SCHEMA,
    MATCH_SCHEMA,
    MEMBERSHIP_SCHEMA,
)


def bucket_frame(spark: SparkSession, partitions: int) -> DataFrame:
    """One bucket number per partition, so each task reads exactly one bucket: spark.range
    places them without a shuffle (a repartition of a few rows can leave a core idle)."""
    return spark.range(0, partitions, 1, numPartitions=partitions).select(F.col("id").alias("bucket"))


def stage_claims(
    spark: SparkSession,
    store: RunStore,
    partitions: int,
    model_ref: Any,
    sentence_counter: Any = None,
    ranker_ref: Any = None,
    task_records: Any = None,
) -> DataFrame:
    """The job's source, extraction and sink in one (udfs.make_claim_stager): each task reads
    one id bucket of the run's articles from the store itself (article texts go from
    PostgreSQL straight to the Python worker that extracts them, not through the driver),
    extracts their claims as extract_claims does, writes them to the store's staging rows
    (binary COPY, one transaction per task) and hands them on (CLAIM_SCHEMA). `task_records`:
    an accumulator for each task's timed parts (pipeline.task_profile)."""
    stager = udfs.make_claim_stager(store, partitions, model_ref, sentence_counter, ranker_ref, task_records)
    return bucket_frame(spark, partitions).mapInArrow(stager, CLAIM_SCHEMA)


def extract_claims(articles_df: DataFrame, model_ref: Any, sentence_counter: Any = None, ranker_ref: Any = None) -> DataFrame:
    """Articles in, claims out (CLAIM_SCHEMA): split, attribute, score, type, parse, rank,
    key, sign (tokens and MinHash band keys). `ranker_ref`: the contestability model of the
    active model version (or its broadcast; None: the shipped one). Pure: no I/O. The job
    runs the same extractor between its source and its sink, in stage_claims."""
    extractor = udfs.make_claim_extractor(model_ref, sentence_counter, ranker_ref)
    return articles_df.select(*ARTICLE_SCHEMA.fieldNames()).mapInArrow(extractor, CLAIM_SCHEMA)


def claim_node_column(claim_key: Column) -> Column:
    """pipeline.nlp.clustering.claim_node in Spark: the first 60 bits of the key, as a number."""
    return F.conv(F.substring(claim_key, 1, 15), 16, 10).cast("long")


def band_memberships(claims_df: DataFrame) -> DataFrame:
    """Claims -> their band memberships (MEMBERSHIP_SCHEMA), one row per claim and band key,
    in_run true. A claim too short to cluster has no band keys and no row."""
    return claims_df.select(
        claim_node_column(F.col("claim_key")).alias("node"), F.explode("bands").alias("band"), F.lit(True).alias("in_run")
    )


def stored_memberships(spark: SparkSession, store: RunStore) -> DataFrame:
    """The memberships of the stored claims sharing a band key with the run's (in_run false),
    read by one task once the run's claims are written."""
    return bucket_frame(spark, 1).mapInArrow(udfs.make_stored_memberships_reader(store), MEMBERSHIP_SCHEMA)


def candidate_pairs(memberships_df: DataFrame, partitions: int | None = None) -> DataFrame:
    """Band memberships (node, band, in_run) -> candidate pairs (src, dst) of nodes.

    Claims are candidates when they share a MinHash band bucket (pipeline.nlp.clustering):
    the shuffle brings every membership of a band into one partition, and each partition
    pairs, in every bucket that holds a claim of the run, each member with the bucket's
    smallest node (a star, linear in the bucket: clustering.star_pairs). Nearly every
    bucket is a singleton, so what crosses the shuffle is two numbers and a flag per claim
    and band, and what comes out is small. A pair whose claims share bands in two partitions
    comes out of both; the driver keeps one.
    """
    shuffled = memberships_df.repartition(partitions, "band") if partitions else memberships_df.repartition("band")
    return shuffled.mapInArrow(udfs.find_stars, CANDIDATE_SCHEMA)


def claim_texts(claims_df: DataFrame, article_dates_df: DataFrame) -> DataFrame:
    """Claims (one row per appearance) -> one row per claim key (CLAIM_TEXT_SCHEMA): its
    sentence and the date of the earliest dated article that made it. The dates (one row per
    article of the run) go to every task: built on the driver, their size is unknown to the
    planner, which would otherwise shuffle both sides, a stage more and the claims moved."""
    dated_df = claims_df.select("claim_key", "sentence", "article_id").join(F.broadcast(article_dates_df), on="article_id", how="left")
    return dated_df.groupBy("claim_key").agg(F.min("sentence").alias("sentence"), F.min("article_date").alias("claim_date"))


def article_dates(spark: SparkSession, store: RunStore) -> DataFrame:
    """The run's articles' publication dates (ARTICLE_DATE_SCHEMA), read on the driver."""
    return spark.createDataFrame(store.read_article_dates(), ARTICLE_DATE_SCHEMA)


def match_claims(claim_texts_df: DataFrame, library_ref: Any, top: int, min_score: float) -> DataFrame:
    """Claims (CLAIM_TEXT_SCHEMA) -> their `top` best fact-checks of the library scoring at
    least `min_score` (MATCH_SCHEMA: claim_key, factcheck_id, score, rank), with pipeline.nlp.matching, the code of
    `python -m pipeline match`. `library_ref`: the library prepared by
    pipeline.match_library (its built index as bytes, and its candidates per claim) or its
    broadcast; each Python worker reads the index once. Pure: no I/O."""
    return claim_texts_df.select(*CLAIM_TEXT_SCHEMA.fieldNames()).mapInArrow(udfs.make_claim_matcher(library_ref, top, min_score), MATCH_SCHEMA)


# (claim_key, factcheck_id, score, rank): a match as RunStore.write_matches stores it.
MatchRow = tuple[str, int, float, int]


def collect_matches(matches_df: DataFrame) -> list[MatchRow]:
    """The run's matches on the driver (a few per claim), for RunStore.write_matches."""
    return [(row.claim_key, row.factcheck_id, row.score, row.rank) for row in matches_df.collect()]

