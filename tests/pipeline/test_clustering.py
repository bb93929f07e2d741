"""Which claims are the same claim: tokens, the rule, and both implementations of it."""

from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from pipeline.nlp.clustering import band_keys, claim_text, cluster_records, cluster_tokens, components, jaccard
from pipeline.transforms import assign_clusters, with_cluster_keys

FLOOD_000 = "“We’re definitely going to, as you’ve heard the saying, flood the zone, especially in sanctuary jurisdictions,” he explained."
FLOOD_001 = "“We’re definitely going to, as you’ve heard the saying, flood the zone, especially in sanctuary jurisdictions,” Lyons told Carr."
FLOOD_002 = "“We’re definitely going to … flood the zone, especially in sanctuary jurisdictions.”"
SANCTUARY_000 = "Lyons added, “Sanctuary does not mean safer streets."
SANCTUARY_001 = "“Sanctuary does not mean safer streets."
UNRELATED = "Wu said Boston has been receiving those grants for 22 years, and already does border security through harbor patrols."


def test_attribution_words_do_not_count() -> None:
    assert claim_text(FLOOD_000) == claim_text(FLOOD_001)
    assert cluster_tokens(FLOOD_000) == cluster_tokens(FLOOD_001)
    assert cluster_tokens(SANCTUARY_000) == cluster_tokens(SANCTUARY_001) == ["does", "mean", "not", "safer", "sanctuary", "streets"]


def test_lightly_reworded_quote_is_similar_and_other_claims_are_not() -> None:
    assert jaccard(cluster_tokens(FLOOD_000), cluster_tokens(FLOOD_002)) >= 0.5
    assert jaccard(cluster_tokens(FLOOD_000), cluster_tokens(UNRELATED)) < 0.2


def test_quantities_add_a_shared_token_for_paraphrased_statistics() -> None:
    quantity = [{"value": 1500.0, "unit": "people", "hedge": "approximately-below"}]
    left = cluster_tokens("ICE detained nearly 1,500 people in Massachusetts in May.", quantity)
    right = cluster_tokens("Almost 1,500 people were detained by ICE in Massachusetts in May.", quantity)
    assert "#1500:people" in left and "1500" in left
    assert jaccard(left, right) >= 0.5


def test_band_keys_are_stable_and_shared_by_near_duplicates() -> None:
    assert band_keys(cluster_tokens(FLOOD_000)) == band_keys(cluster_tokens(FLOOD_001))
    assert len(band_keys(cluster_tokens(FLOOD_000))) == 20
    assert band_keys(["too", "short"]) == []
    shared = set(band_keys(cluster_tokens(FLOOD_000))) & set(band_keys(cluster_tokens(UNRELATED)))
    assert not shared


def test_components_take_the_smallest_label_and_merge_stored_clusters() -> None:
    labels = {"k1": "k1", "k2": "k0", "k3": "k3", "k4": "k4"}
    assert components([("k1", "k2"), ("k3", "k4")], labels) == {"k1": "k0", "k2": "k0", "k3": "k3", "k4": "k3"}


def test_cluster_records_uses_the_smallest_key_of_each_component() -> None:
    tokens = {
        "k3": cluster_tokens(FLOOD_002), "k1": cluster_tokens(FLOOD_000), "k2": cluster_tokens(FLOOD_001),
        "k5": cluster_tokens(SANCTUARY_001), "k4": cluster_tokens(SANCTUARY_000), "k6": cluster_tokens(UNRELATED),
        "k0": ["too", "short"],
    }
    assert cluster_records(tokens) == {"k0": "k0", "k1": "k1", "k2": "k1", "k3": "k1", "k4": "k4", "k5": "k4", "k6": "k6"}


def with_tokens(spark, rows):  # type: ignore[no-untyped-def]
    frame = spark.createDataFrame(rows, "claim_key string, sentence string, cluster_key string")
    return frame.withColumn("quantities", F.lit("[]")).transform(with_cluster_keys).drop("quantities")


def test_assign_clusters_in_spark_matches_the_python_rule_and_merges_stored_clusters(spark) -> None:  # type: ignore[no-untyped-def]
    # Stored: two clusters that a new claim bridges (k2 ~ k4 only through k3), plus one loner.
    stored = with_tokens(spark, [
        ("k2", FLOOD_001, "k2"), ("k7", FLOOD_001 + " ", "k2"),
        ("k4", "We are going to flood the zone in sanctuary jurisdictions with agents, Lyons promised.", "k4"),
        ("k9", UNRELATED, "k9"),
    ])
    run = with_tokens(spark, [
        ("k1", FLOOD_000, ""), ("k3", "We’re definitely going to flood the zone in sanctuary jurisdictions.", ""),
        ("k5", SANCTUARY_000, ""), ("k6", SANCTUARY_001, ""), ("k8", "Thank you all very much.", ""),
    ]).drop("cluster_key")
    clustered, remap = assign_clusters(run, stored)
    assertDataFrameEqual(
        clustered.select("claim_key", "cluster_key"),
        spark.createDataFrame([("k1", "k1"), ("k3", "k1"), ("k5", "k5"), ("k6", "k5"), ("k8", "k8")], "claim_key string, cluster_key string"),
    )
    assert remap == [("k2", "k1"), ("k4", "k1")]
