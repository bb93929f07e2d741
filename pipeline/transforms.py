"""Pure DataFrame -> DataFrame transforms of the claim-extraction job."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from pipeline import udfs
from pipeline.nlp.clustering import SIMILARITY_THRESHOLD, components
from pipeline.schemas import CLAIM_SCHEMA


def extract_claims(articles_df: DataFrame, model_ref: Any, sentence_counter: Any = None) -> DataFrame:
    """Articles in, claims out: split, attribute, score, type, parse, key, cluster keys."""
    return articles_df.select("article_id", "content_hash", "text", "outlet", "author").mapInPandas(
        udfs.make_claim_extractor(model_ref, sentence_counter), CLAIM_SCHEMA
    )


def cluster_nodes(run_df: DataFrame, stored_df: DataFrame | None) -> DataFrame:
    """Every claim clustering looks at, once, as (claim_key, tokens, bands, label, stored,
    in_run, stored_label): the run's claims (claim_key, tokens, bands) and the stored ones
    (the same plus cluster_key). label is the stored cluster key, else the claim's own. A
    claim both stored and in the run keeps its stored tokens and bands. With nothing stored
    (a first run), no join at all."""
    run = run_df.select("claim_key", "tokens", "bands")
    if stored_df is None:
        return run.select(
            "*", F.col("claim_key").alias("label"), F.lit(False).alias("stored"), F.lit(True).alias("in_run"),
            F.lit(None).cast("string").alias("stored_label"),
        )
    run = run.withColumnRenamed("tokens", "run_tokens").withColumnRenamed("bands", "run_bands").withColumn("in_run", F.lit(True))
    stored = stored_df.select(
        "claim_key", "tokens", "bands",
        F.when(F.col("cluster_key") == "", F.col("claim_key")).otherwise(F.col("cluster_key")).alias("stored_label"),
    )
    return run.join(stored, on="claim_key", how="full").select(
        "claim_key",
        F.coalesce("tokens", "run_tokens").alias("tokens"),
        F.coalesce("bands", "run_bands").alias("bands"),
        F.coalesce("stored_label", "claim_key").alias("label"),
        F.col("stored_label").isNotNull().alias("stored"),
        F.coalesce("in_run", F.lit(False)).alias("in_run"),
        "stored_label",
    )


def with_node_ids(nodes_df: DataFrame) -> DataFrame:
    """node: a number for the claim key that sorts as the key does (its first 60 bits; the
    key is a sha1 in hex), so the band shuffle moves and compares numbers, not strings.
    Two claims share one with probability about n^2 / 2^61 (4e-5 at ten million claims);
    then a bucket could try one pair more, which the exact Jaccard still has to pass."""
    return nodes_df.withColumn("node", F.conv(F.substring("claim_key", 1, 15), 16, 10).cast("long"))


def similar_pairs(nodes_df: DataFrame) -> DataFrame:
    """Similar pairs among nodes (claim_key, node, tokens, bands, label, stored, in_run).

    Candidates share a MinHash band (pipeline.nlp.clustering.band_keys). In every band
    bucket that holds one of this run's claims, each member pairs with the bucket's smallest
    key (a star, linear in the bucket, not a clique); the exact Jaccard of the token arrays
    then decides. The same rule as clustering.cluster_records.

    Every claim sits in LSH_BANDS buckets, nearly all of them singletons, so the band
    shuffle carries numbers only and aggregates with fixed-width functions (no lists);
    tokens and labels join the few candidate pairs after.
    """
    memberships = nodes_df.select("node", "in_run", F.explode("bands").alias("band"))
    centres = (
        memberships.groupBy("band")
        .agg(F.max("in_run").alias("has_run_claim"), F.min("node").alias("centre"), F.count("*").alias("members"))
        .filter(F.col("has_run_claim") & (F.col("members") >= 2))
        .select("band", "centre")
    )
    stars = (
        memberships.join(centres, on="band", how="inner")
        .filter(F.col("node") != F.col("centre"))
        .select(F.col("centre").alias("src_node"), F.col("node").alias("dst_node"))
        .distinct()
    )
    info = nodes_df.select("node", "claim_key", "tokens", "label", "stored", "in_run")
    src = info.select(*(F.col(name).alias(f"src_{name}") for name in info.columns))
    dst = info.select(*(F.col(name).alias(f"dst_{name}") for name in info.columns))
    candidates = stars.join(src, on="src_node", how="inner").join(dst, on="dst_node", how="inner")
    overlap = F.size(F.array_intersect("src_tokens", "dst_tokens")) / F.size(F.array_union("src_tokens", "dst_tokens"))
    return candidates.filter(overlap >= F.lit(SIMILARITY_THRESHOLD)).select(
        F.col("src_claim_key").alias("src"), "src_label", "src_stored", "src_in_run",
        F.col("dst_claim_key").alias("dst"), "dst_label", "dst_stored", "dst_in_run",
    )


@dataclass(frozen=True)
class Clustering:
    """What a run's clustering decided.

    assigned: claim_key -> cluster_key for each of the run's claims that joined others;
    remap: (old_key, new_key) for each stored cluster that merged into another.
    Every other claim of the run keeps its stored cluster key (after the remap), or, if new,
    forms a cluster of its own under its claim key; the merge applies both rules
    (pipeline.db.RUN_STAGED).
    """

    assigned: dict[str, str]
    remap: list[tuple[str, str]]


def assign_clusters(run_df: DataFrame, stored_df: DataFrame | None) -> Clustering:
    """Cluster this run's claims against each other and everything already stored.

    run_df: the run's claims with claim_key, tokens and bands; stored_df: stored claims
    with the same plus cluster_key, or None when nothing is stored. A cluster's key is the
    smallest claim key in it, so the result does not depend on the order articles arrived
    in.

    Only similar pairs reach the driver, where union-find joins them into components:
    near-duplicate edges are few even when claims are many, and so are the assignments
    that go back to the database.
    """
    nodes = cluster_nodes(run_df, stored_df).transform(with_node_ids)
    if stored_df is not None:
        # The join with the stored claims, materialised once: the pairs read it three times.
        nodes = nodes.persist(StorageLevel.MEMORY_AND_DISK)
        nodes.count()
    edges: list[tuple[str, str]] = []
    labels: dict[str, str] = {}
    stored_keys: set[str] = set()
    run_keys: set[str] = set()
    for row in similar_pairs(nodes).collect():
        edges.append((row.src, row.dst))
        labels[row.src], labels[row.dst] = row.src_label, row.dst_label
        for key, stored, in_run in ((row.src, row.src_stored, row.src_in_run), (row.dst, row.dst_stored, row.dst_in_run)):
            if stored:
                stored_keys.add(key)
            if in_run:
                run_keys.add(key)
    nodes.unpersist()  # a no-op when it was not persisted
    final = components(edges, labels)
    remap = sorted({(labels[key], final[key]) for key in stored_keys if labels[key] != final[key]})
    return Clustering(assigned={key: final[key] for key in sorted(run_keys)}, remap=remap)
