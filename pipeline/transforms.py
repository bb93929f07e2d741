"""Pure DataFrame -> DataFrame transforms of the claim-extraction job."""

from __future__ import annotations

from typing import Any

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf

from pipeline import udfs
from pipeline.nlp.clustering import SIMILARITY_THRESHOLD, components
from pipeline.schemas import CLAIM_SCHEMA, CLUSTER_KEYS_SCHEMA


@pandas_udf(CLUSTER_KEYS_SCHEMA)  # type: ignore[call-overload]
def cluster_keys_udf(sentences: pd.Series, quantities: pd.Series) -> pd.DataFrame:
    return udfs.cluster_keys(sentences, quantities)


def extract_claims(articles_df: DataFrame, model_ref: Any, sentence_counter: Any = None) -> DataFrame:
    """Articles in, claims out: split, attribute, score, type, parse, key, cluster keys."""
    return articles_df.select("article_id", "content_hash", "text", "outlet", "author").mapInPandas(
        udfs.make_claim_extractor(model_ref, sentence_counter), CLAIM_SCHEMA
    )


def with_cluster_keys(claims_df: DataFrame) -> DataFrame:
    """tokens (what makes claims the same) and bands (their MinHash band keys), for
    claims read back from the database."""
    keys = cluster_keys_udf(F.col("sentence"), F.col("quantities"))
    return claims_df.withColumn("_keys", keys).withColumn("tokens", F.col("_keys.tokens")).withColumn("bands", F.col("_keys.bands")).drop("_keys")


def similar_pairs(nodes_df: DataFrame) -> DataFrame:
    """Similar pairs among nodes (claim_key, tokens, bands, label, stored, in_run).

    Candidates share a MinHash band (pipeline.nlp.clustering.band_keys). Each band bucket
    that holds one of this run's claims is gathered once, with its members' tokens, and
    every member pairs with the bucket's smallest key (a star, linear in the bucket, not a
    clique); the exact Jaccard of the token arrays then decides. One shuffle, no joins.
    The same rule as clustering.cluster_records.
    """
    member = F.struct("claim_key", "tokens", "label", "stored")
    buckets = (
        nodes_df.select(member.alias("member"), "in_run", F.explode("bands").alias("band"))
        .groupBy("band")
        .agg(F.max("in_run").alias("has_run_claim"), F.array_sort(F.collect_list("member")).alias("members"))
        .filter(F.col("has_run_claim") & (F.size("members") >= 2))
    )
    stars = buckets.select(
        F.element_at("members", 1).alias("src"), F.explode(F.slice("members", 2, F.size("members") - 1)).alias("dst")
    )
    overlap = F.size(F.array_intersect("src.tokens", "dst.tokens")) / F.size(F.array_union("src.tokens", "dst.tokens"))
    return stars.filter(overlap >= F.lit(SIMILARITY_THRESHOLD)).select(
        F.col("src.claim_key").alias("src"), F.col("src.label").alias("src_label"), F.col("src.stored").alias("src_stored"),
        F.col("dst.claim_key").alias("dst"), F.col("dst.label").alias("dst_label"), F.col("dst.stored").alias("dst_stored"),
    ).distinct()


def assign_clusters(claims_df: DataFrame, existing_df: DataFrame) -> tuple[DataFrame, list[tuple[str, str]]]:
    """Cluster this run's claims against each other and everything already stored.

    claims_df: the run's claims with claim_key, tokens and bands; existing_df: stored
    claims with the same plus cluster_key. Returns (claims_df with cluster_key, the stored
    clusters that merged as (old_key, new_key)). A cluster's key is the smallest claim key
    in it, so the result does not depend on the order articles arrived in.

    Only similar pairs reach the driver, where union-find joins them into components:
    near-duplicate edges are few even when claims are many.
    """
    spark = claims_df.sparkSession
    run_keys = claims_df.select("claim_key", F.lit(True).alias("in_run"))
    stored = existing_df.select(
        "claim_key", "tokens", "bands",
        F.when(F.col("cluster_key") == "", F.col("claim_key")).otherwise(F.col("cluster_key")).alias("label"),
        F.lit(True).alias("stored"),
    )
    fresh = (
        claims_df.select("claim_key", "tokens", "bands")
        .join(stored.select("claim_key"), on="claim_key", how="left_anti")
        .withColumn("label", F.col("claim_key"))
        .withColumn("stored", F.lit(False))
    )
    nodes = (
        stored.unionByName(fresh)
        .join(run_keys, on="claim_key", how="left")
        .withColumn("in_run", F.coalesce("in_run", F.lit(False)))
    )
    edges: list[tuple[str, str]] = []
    labels: dict[str, str] = {}
    stored_keys: set[str] = set()
    for row in similar_pairs(nodes).collect():
        edges.append((row.src, row.dst))
        labels[row.src], labels[row.dst] = row.src_label, row.dst_label
        if row.src_stored:
            stored_keys.add(row.src)
        if row.dst_stored:
            stored_keys.add(row.dst)
    final = components(edges, labels)
    remap = sorted({(labels[key], final[key]) for key in stored_keys if labels[key] != final[key]})
    stored_remap = dict(remap)
    assigned = spark.createDataFrame(sorted(final.items()) or [("", "")], "claim_key string, assigned string")
    clustered = (
        claims_df.join(assigned, on="claim_key", how="left")
        .join(stored.select("claim_key", F.col("label").alias("stored_label")), on="claim_key", how="left")
        .withColumn("cluster_key", F.coalesce("assigned", "stored_label", "claim_key"))
        .drop("assigned", "stored_label")
    )
    if stored_remap:
        # A run claim whose stored cluster merged elsewhere without an edge of its own.
        remapped = spark.createDataFrame(sorted(stored_remap.items()), "cluster_key string, merged_into string")
        clustered = clustered.join(remapped, on="cluster_key", how="left").withColumn(
            "cluster_key", F.coalesce("merged_into", "cluster_key")
        ).drop("merged_into")
    return clustered, remap


def to_staging_rows(claims_df: DataFrame) -> DataFrame:
    return claims_df.select(
        "claim_key", "article_id", "sentence", "start_offset", "end_offset", "score", "claim_type", "speaker",
        "claim_types", "quantities", "speaker_title", "attribution", "cluster_key",
    )
