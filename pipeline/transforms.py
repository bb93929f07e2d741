"""Pure DataFrame -> DataFrame transforms of the claim-extraction job."""

from __future__ import annotations

from typing import Any

import pandas as pd
from pyspark.ml.feature import HashingTF, MinHashLSH
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf

from pipeline import udfs
from pipeline.nlp.clustering import MIN_TOKENS, SIMILARITY_THRESHOLD
from pipeline.schemas import SCORED_CLAIM_SCHEMA, SENTENCE_SCHEMA, TOKENS_TYPE

LSH_HASH_TABLES = 12
LSH_SEED = 20251122
HASHING_FEATURES = 1 << 20
MAX_LABEL_ROUNDS = 30


@pandas_udf(TOKENS_TYPE)  # type: ignore[call-overload]
def cluster_tokens_udf(sentences: pd.Series, quantities: pd.Series) -> pd.Series:
    return udfs.tokens_for_clustering(sentences, quantities)


def explode_sentences(articles_df: DataFrame, sentence_counter: Any = None) -> DataFrame:
    return articles_df.select("article_id", "content_hash", "text", "outlet", "author").mapInPandas(
        udfs.make_sentence_splitter(sentence_counter), SENTENCE_SCHEMA
    )


def score_claims(sentences_df: DataFrame, scorer_ref: Any) -> DataFrame:
    """Keep the check-worthy sentences, with score, types and parsed quantities."""
    return sentences_df.mapInPandas(udfs.make_claim_scorer(scorer_ref), SCORED_CLAIM_SCHEMA)


def with_claim_key(claims_df: DataFrame) -> DataFrame:
    """sha1(content hash : start : end): the same span of the same text is the same claim."""
    key_source = F.concat_ws(":", F.col("content_hash"), F.col("start_offset").cast("string"), F.col("end_offset").cast("string"))
    return claims_df.withColumn("claim_key", F.sha1(key_source))


def with_cluster_tokens(claims_df: DataFrame) -> DataFrame:
    return claims_df.withColumn("tokens", cluster_tokens_udf(F.col("sentence"), F.col("quantities")))


def similar_pairs(query_df: DataFrame, nodes_df: DataFrame) -> DataFrame:
    """(src, dst) for claims whose token sets have Jaccard similarity >= the threshold.

    MinHashLSH proposes candidates without comparing all pairs; the exact Jaccard on the
    token arrays then decides, so hashing collisions cannot create a false match.
    """
    enough_tokens = F.size("tokens") >= MIN_TOKENS
    hashing = HashingTF(inputCol="tokens", outputCol="features", numFeatures=HASHING_FEATURES, binary=True)
    query_vec = hashing.transform(query_df.filter(enough_tokens).select("claim_key", "tokens"))
    nodes_vec = hashing.transform(nodes_df.filter(enough_tokens).select("claim_key", "tokens"))
    lsh = MinHashLSH(inputCol="features", outputCol="hashes", numHashTables=LSH_HASH_TABLES, seed=LSH_SEED).fit(nodes_vec)
    # approxSimilarityJoin keeps distances strictly below its threshold; the rule is >=.
    joined = lsh.approxSimilarityJoin(query_vec, nodes_vec, 1.0 - SIMILARITY_THRESHOLD + 1e-9, distCol="distance")
    left_tokens, right_tokens = F.col("datasetA.tokens"), F.col("datasetB.tokens")
    exact = F.size(F.array_intersect(left_tokens, right_tokens)) / F.size(F.array_union(left_tokens, right_tokens))
    pairs = joined.filter(F.col("datasetA.claim_key") != F.col("datasetB.claim_key")).filter(exact >= F.lit(SIMILARITY_THRESHOLD))
    forward = pairs.select(F.col("datasetA.claim_key").alias("src"), F.col("datasetB.claim_key").alias("dst"))
    backward = forward.select(F.col("dst").alias("src"), F.col("src").alias("dst"))
    return forward.unionByName(backward).distinct()


def propagate_min_labels(labels_df: DataFrame, edges_df: DataFrame) -> DataFrame:
    """Connected components by min-label propagation: each node ends with the smallest
    label reachable from it. Converges in (component diameter) rounds; paraphrase clusters
    are shallow."""
    labels = labels_df.localCheckpoint()
    for _ in range(MAX_LABEL_ROUNDS):
        offered = edges_df.join(labels, edges_df.src == labels.claim_key, how="inner").select(
            F.col("dst").alias("claim_key"), F.col("label").alias("offered")
        )
        updated = (
            labels.join(offered, on="claim_key", how="left")
            .groupBy("claim_key")
            .agg(F.least(F.min("label"), F.coalesce(F.min("offered"), F.min("label"))).alias("label"))
            .localCheckpoint()
        )
        changed = updated.join(labels.withColumnRenamed("label", "before"), on="claim_key", how="inner").filter(
            F.col("label") != F.col("before")
        )
        labels = updated
        if changed.isEmpty():
            break
    return labels


def assign_clusters(claims_df: DataFrame, existing_df: DataFrame) -> tuple[DataFrame, DataFrame]:
    """Cluster this run's claims against each other and everything already stored.

    claims_df: the run's claims with claim_key and tokens. existing_df: stored claims with
    claim_key, tokens and cluster_key. Returns (claims_df with cluster_key, remap_df of
    stored clusters that merged: old_key -> new_key). A cluster's key is the smallest
    claim_key in it, so the result does not depend on the order articles arrived in.
    """
    run_keys = claims_df.select("claim_key", "tokens")
    stored = existing_df.select(
        "claim_key", "tokens", F.when(F.col("cluster_key") == "", F.col("claim_key")).otherwise(F.col("cluster_key")).alias("label")
    )
    fresh = run_keys.join(stored.select("claim_key"), on="claim_key", how="left_anti").withColumn("label", F.col("claim_key"))
    nodes = stored.unionByName(fresh)
    edges = similar_pairs(run_keys, nodes.select("claim_key", "tokens")).localCheckpoint()
    touched = edges.select(F.col("src").alias("claim_key")).distinct()
    start = nodes.join(touched, on="claim_key", how="inner").select("claim_key", "label")
    # Members of a stored cluster that only its key connects still move with it: start
    # from every node sharing a touched label.
    touched_labels = start.select("label").distinct()
    start = nodes.join(touched_labels, on="label", how="inner").select("claim_key", "label")
    edges = edges.unionByName(cluster_star_edges(start))
    final = propagate_min_labels(start, edges)

    claims_with_cluster = (
        claims_df.join(final.withColumnRenamed("label", "propagated"), on="claim_key", how="left")
        .join(stored.select("claim_key", F.col("label").alias("stored_label")), on="claim_key", how="left")
        .withColumn("cluster_key", F.coalesce("propagated", "stored_label", "claim_key"))
        .drop("propagated", "stored_label")
    )
    remap = (
        stored.join(final.withColumnRenamed("label", "new_key"), on="claim_key", how="inner")
        .filter(F.col("label") != F.col("new_key"))
        .select(F.col("label").alias("old_key"), "new_key")
        .distinct()
    )
    return claims_with_cluster, remap


def cluster_star_edges(labels_df: DataFrame) -> DataFrame:
    """Edges joining each node to its label's node (when that node is in the set), so a
    stored cluster stays connected while labels propagate."""
    return labels_df.filter(F.col("claim_key") != F.col("label")).select(
        F.col("label").alias("src"), F.col("claim_key").alias("dst")
    ).unionByName(labels_df.filter(F.col("claim_key") != F.col("label")).select(F.col("claim_key").alias("src"), F.col("label").alias("dst")))


def to_staging_rows(claims_df: DataFrame) -> DataFrame:
    return claims_df.select(
        "claim_key", "article_id", "sentence", "start_offset", "end_offset", "score", "claim_type", "speaker",
        "claim_types", "quantities", "speaker_title", "attribution", "cluster_key",
    )
