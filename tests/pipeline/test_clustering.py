"""Which claims are the same claim: tokens, the rule, and both implementations of it."""

from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from pipeline import udfs
from pipeline.nlp.clustering import band_keys, claim_text, cluster_records, cluster_tokens, components, jaccard, signatures
from pipeline.transforms import assign_clusters, cluster_nodes, similar_pairs, with_node_ids

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


# Claim keys are sha1 hex digests, and the clustering relies on it (its node numbers are their
# first 60 bits); these stand-ins sort like the names they replace: k1 -> "111...1".
KEYS = {f"k{n}": str(n) * 40 for n in range(10)}
NAMES = {key: name for name, key in KEYS.items()}


def with_tokens(spark, rows):  # type: ignore[no-untyped-def]
    computed = signatures((sentence, []) for _, sentence, _ in rows)
    rows = [(KEYS[key], tokens, bands, KEYS.get(cluster, cluster)) for (key, _, cluster), (tokens, bands) in zip(rows, computed, strict=True)]
    return spark.createDataFrame(rows, "claim_key string, tokens array<string>, bands array<bigint>, cluster_key string")


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
    clustering = assign_clusters(run, stored)
    # k8 joined nothing: it keeps its own key, which the merge gives it (tests/pipeline/test_db_merge.py).
    assert {NAMES[key]: NAMES[cluster] for key, cluster in clustering.assigned.items()} == {"k1": "k1", "k3": "k1", "k5": "k5", "k6": "k5"}
    assert [(NAMES[old], NAMES[new]) for old, new in clustering.remap] == [("k2", "k1"), ("k4", "k1")]


def test_assign_clusters_with_nothing_stored_pairs_the_run_among_itself(spark) -> None:  # type: ignore[no-untyped-def]
    run = with_tokens(spark, [
        ("k1", FLOOD_000, ""), ("k2", FLOOD_001, ""), ("k5", SANCTUARY_000, ""), ("k6", SANCTUARY_001, ""), ("k8", UNRELATED, ""),
    ]).drop("cluster_key")
    clustering = assign_clusters(run, None)
    assert {NAMES[key]: NAMES[cluster] for key, cluster in clustering.assigned.items()} == {"k1": "k1", "k2": "k1", "k5": "k5", "k6": "k5"}
    assert clustering.remap == []


def test_similar_pairs_pairs_each_bucket_with_its_smallest_key_and_keeps_only_similar_ones(spark) -> None:  # type: ignore[no-untyped-def]
    # k3 shares bands with k1 and k2 but is too different from them; k9 has no partner at all.
    keys = KEYS
    run = with_tokens(spark, [("k1", FLOOD_000, ""), ("k2", FLOOD_002, ""), ("k3", UNRELATED, ""), ("k9", SANCTUARY_000, "")]).drop("cluster_key")
    shared_band = F.array_union("bands", F.array(F.lit(7)))  # puts k3 in k1's and k2's bucket
    run = run.withColumn("bands", F.when(F.col("claim_key").isin(keys["k1"], keys["k2"], keys["k3"]), shared_band).otherwise(F.col("bands")))
    pairs = similar_pairs(cluster_nodes(run, None).transform(with_node_ids))
    assertDataFrameEqual(
        pairs,
        spark.createDataFrame(
            [(keys["k1"], keys["k1"], False, True, keys["k2"], keys["k2"], False, True)],
            "src string, src_label string, src_stored boolean, src_in_run boolean, "
            "dst string, dst_label string, dst_stored boolean, dst_in_run boolean",
        ),
    )


def test_stored_nodes_use_the_stored_signature_and_compute_a_missing_one() -> None:
    tokens = cluster_tokens(FLOOD_000)
    rows = [
        ("k1", "c1", ["stored", "tokens", "kept"], [1, 2, 3], None, None),  # a signature: used as stored
        ("k2", "", None, None, FLOOD_000, "[]"),  # none (an older claim): computed from its sentence
    ]
    frame = udfs.stored_nodes(rows)
    assert frame.to_dict("records") == [
        {"claim_key": "k1", "tokens": ["stored", "tokens", "kept"], "bands": [1, 2, 3], "cluster_key": "c1"},
        {"claim_key": "k2", "tokens": tokens, "bands": band_keys(tokens), "cluster_key": ""},
    ]
