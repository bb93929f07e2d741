"""Pure DataFrame -> DataFrame transforms of the claim-extraction job."""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame

from pipeline import udfs
from pipeline.schemas import CANDIDATE_SCHEMA, CLAIM_SCHEMA


def extract_claims(articles_df: DataFrame, model_ref: Any, sentence_counter: Any = None) -> DataFrame:
    """Articles in, claims out: split, attribute, score, type, parse, key, cluster keys."""
    return articles_df.select("article_id", "content_hash", "text", "outlet", "author").mapInPandas(
        udfs.make_claim_extractor(model_ref, sentence_counter), CLAIM_SCHEMA
    )


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
