"""Pure DataFrame -> DataFrame transforms of the claim-extraction job."""

from __future__ import annotations

from typing import Any

import pandas as pd
from pyspark import StorageLevel
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


def similar_pairs(query_df: DataFrame, nodes_df: DataFrame) -> DataFrame:
    """(src, dst) pairs whose token sets have Jaccard similarity >= the threshold.

    Candidates share a MinHash band (pipeline.nlp.clustering.band_keys); in each band
    bucket holding one of this run's claims, every member pairs with the bucket's smallest
    key (a star, linear in the bucket, not a clique); the exact Jaccard of the token
    arrays then decides. The same rule as clustering.cluster_records, in Spark.
    """
    node_bands = nodes_df.select("claim_key", F.explode("bands").alias("band"))
    run_bands = node_bands.join(query_df.select("claim_key"), on="claim_key", how="inner").select("band").distinct()
    buckets = node_bands.join(run_bands, on="band", how="inner")
    centres = buckets.groupBy("band").agg(F.min("claim_key").alias("centre"))
    candidates = (
        buckets.join(centres, on="band", how="inner")
        .filter(F.col("claim_key") != F.col("centre"))
        .select(F.col("centre").alias("src"), F.col("claim_key").alias("dst"))
        .distinct()
    )
    tokens_src = nodes_df.select(F.col("claim_key").alias("src"), F.col("tokens").alias("src_tokens"))
    tokens_dst = nodes_df.select(F.col("claim_key").alias("dst"), F.col("tokens").alias("dst_tokens"))
    scored = candidates.join(tokens_src, on="src", how="inner").join(tokens_dst, on="dst", how="inner")
    overlap = F.size(F.array_intersect("src_tokens", "dst_tokens")) / F.size(F.array_union("src_tokens", "dst_tokens"))
    return scored.filter(overlap >= F.lit(SIMILARITY_THRESHOLD)).select("src", "dst")


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
    stored = existing_df.select(
        "claim_key", "tokens", "bands",
        F.when(F.col("cluster_key") == "", F.col("claim_key")).otherwise(F.col("cluster_key")).alias("label"),
        F.lit(True).alias("stored"),
    )
    run_nodes = claims_df.select("claim_key", "tokens", "bands")
    fresh = run_nodes.join(stored.select("claim_key"), on="claim_key", how="left_anti").withColumn("label", F.col("claim_key"))
    # Read once: both the band join and the label lookup use every node.
    nodes = stored.unionByName(fresh.withColumn("stored", F.lit(False))).persist(StorageLevel.MEMORY_AND_DISK)
    edges = [(row.src, row.dst) for row in similar_pairs(run_nodes, nodes).collect()]
    touched = {key for edge in edges for key in edge}
    labels: dict[str, str] = {}
    stored_keys: set[str] = set()
    if touched:
        touched_df = spark.createDataFrame([(key,) for key in sorted(touched)], "claim_key string")
        for row in nodes.join(touched_df, on="claim_key", how="inner").select("claim_key", "label", "stored").collect():
            labels[row.claim_key] = row.label
            if row.stored:
                stored_keys.add(row.claim_key)
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
    nodes.unpersist()
    return clustered, remap


def to_staging_rows(claims_df: DataFrame) -> DataFrame:
    return claims_df.select(
        "claim_key", "article_id", "sentence", "start_offset", "end_offset", "score", "claim_type", "speaker",
        "claim_types", "quantities", "speaker_title", "attribution", "cluster_key",
    )
