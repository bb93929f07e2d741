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


def cluster_nodes(claims_df: DataFrame, existing_df: DataFrame) -> DataFrame:
    """Every claim clustering looks at, once: the run's claims (all their columns) and the
    stored ones, with tokens, bands, label (the stored cluster key, else the claim's own),
    stored, in_run and stored_label. A claim both stored and in the run keeps its stored
    tokens and bands. One full outer join on claim_key."""
    run = (
        claims_df.withColumnRenamed("tokens", "run_tokens")
        .withColumnRenamed("bands", "run_bands")
        .withColumn("in_run", F.lit(True))
    )
    stored = existing_df.select(
        "claim_key", "tokens", "bands",
        F.when(F.col("cluster_key") == "", F.col("claim_key")).otherwise(F.col("cluster_key")).alias("stored_label"),
    )
    run_columns = [name for name in claims_df.columns if name not in ("claim_key", "tokens", "bands")]
    return run.join(stored, on="claim_key", how="full").select(
        "claim_key", *run_columns,
        F.coalesce("tokens", "run_tokens").alias("tokens"),
        F.coalesce("bands", "run_bands").alias("bands"),
        F.coalesce("stored_label", "claim_key").alias("label"),
        F.col("stored_label").isNotNull().alias("stored"),
        F.coalesce("in_run", F.lit(False)).alias("in_run"),
        "stored_label",
    )


def similar_pairs(nodes_df: DataFrame) -> DataFrame:
    """Similar pairs among nodes (claim_key, tokens, bands, label, stored, in_run).

    Candidates share a MinHash band (pipeline.nlp.clustering.band_keys). Each band bucket
    that holds one of this run's claims is gathered once and every member pairs with the
    bucket's smallest key (a star, linear in the bucket, not a clique); the exact Jaccard
    of the token arrays then decides. The same rule as clustering.cluster_records.

    Only keys travel through the band shuffle (every claim appears in LSH_BANDS buckets,
    nearly all of them singletons); tokens and labels join the few candidate pairs after.
    """
    buckets = (
        nodes_df.select("claim_key", "in_run", F.explode("bands").alias("band"))
        .groupBy("band")
        .agg(F.max("in_run").alias("has_run_claim"), F.array_sort(F.collect_list("claim_key")).alias("members"))
        .filter(F.col("has_run_claim") & (F.size("members") >= 2))
    )
    stars = buckets.select(
        F.element_at("members", 1).alias("src"), F.explode(F.slice("members", 2, F.size("members") - 1)).alias("dst")
    ).distinct()
    info = nodes_df.select("claim_key", "tokens", "label", "stored")
    src = info.select(*(F.col(name).alias(f"src_{name}") for name in info.columns))
    dst = info.select(*(F.col(name).alias(f"dst_{name}") for name in info.columns))
    candidates = stars.join(src, on=stars["src"] == src["src_claim_key"], how="inner").join(
        dst, on=stars["dst"] == dst["dst_claim_key"], how="inner"
    )
    overlap = F.size(F.array_intersect("src_tokens", "dst_tokens")) / F.size(F.array_union("src_tokens", "dst_tokens"))
    return candidates.filter(overlap >= F.lit(SIMILARITY_THRESHOLD)).select(
        "src", "src_label", "src_stored", "dst", "dst_label", "dst_stored",
    )


def assign_clusters(claims_df: DataFrame, existing_df: DataFrame) -> tuple[DataFrame, list[tuple[str, str]]]:
    """Cluster this run's claims against each other and everything already stored.

    claims_df: the run's claims with claim_key, tokens and bands; existing_df: stored
    claims with the same plus cluster_key. Returns (claims_df with cluster_key, the stored
    clusters that merged as (old_key, new_key)). A cluster's key is the smallest claim key
    in it, so the result does not depend on the order articles arrived in.

    Only similar pairs reach the driver, where union-find joins them into components:
    near-duplicate edges are few even when claims are many. The nodes are cached while
    they are needed twice (pairs, then the run's labels); the caller may unpersist the
    returned frame's sources once it is written.
    """
    spark = claims_df.sparkSession
    nodes = cluster_nodes(claims_df, existing_df).persist(StorageLevel.MEMORY_AND_DISK)
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
        nodes.filter(F.col("in_run"))
        .join(F.broadcast(assigned), on="claim_key", how="left")
        .withColumn("cluster_key", F.coalesce("assigned", "stored_label", "claim_key"))
    )
    if stored_remap:
        # A run claim whose stored cluster merged elsewhere without an edge of its own.
        remapped = spark.createDataFrame(sorted(stored_remap.items()), "cluster_key string, merged_into string")
        clustered = clustered.join(F.broadcast(remapped), on="cluster_key", how="left").withColumn(
            "cluster_key", F.coalesce("merged_into", "cluster_key")
        )
    return clustered.select(*claims_df.columns, "cluster_key"), remap


def to_staging_rows(claims_df: DataFrame) -> DataFrame:
    return claims_df.select(
        "claim_key", "article_id", "sentence", "start_offset", "end_offset", "score", "claim_type", "speaker",
        "claim_types", "quantities", "speaker_title", "attribution", "cluster_key",
    )
