"""Which claims are the same claim: tokens, the rule, and both implementations of it."""

from __future__ import annotations

import numpy as np
from pyspark.testing import assertDataFrameEqual

from pipeline import udfs
from pipeline.nlp.clustering import (
    NodeClaim,
    band_keys,
    claim_node,
    claim_text,
    cluster_records,
    cluster_tokens,
    components,
    distinct_pairs,
    jaccard,
    resolve_clusters,
    signatures,
    star_pairs,
)
from pipeline.schemas import CANDIDATE_SCHEMA, MEMBERSHIP_SCHEMA
from pipeline.transforms import candidate_pairs

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
NODES = {name: claim_node(key) for name, key in KEYS.items()}


def scenario(rows: list[tuple[str, str, str | None, bool]]) -> tuple[list[tuple[int, int, bool]], dict[int, list[NodeClaim]]]:
    """(name, sentence, stored cluster name or None, in_run) -> band memberships and the
    claims behind each node, as the Spark job and pipeline.db give them."""
    computed = signatures((sentence, []) for _, sentence, _, _ in rows)
    memberships = [(NODES[name], band, in_run) for (name, _, _, in_run), (_, bands) in zip(rows, computed, strict=True) for band in bands]
    claims = {
        NODES[name]: [NodeClaim(KEYS[name], tokens, in_run, KEYS[cluster] if cluster else None)]
        for (name, _, cluster, in_run), (tokens, _) in zip(rows, computed, strict=True)
    }
    return memberships, claims


def python_pairs(memberships: list[tuple[int, int, bool]]) -> list[tuple[int, int]]:
    node, band, in_run = (np.array(column) for column in zip(*memberships, strict=True))
    return [tuple(pair) for pair in star_pairs(band, node, in_run).tolist()]


# Stored: two clusters that a new claim bridges (k2 ~ k4 only through k3), plus one loner;
# the run: k3 and two other pairs' members, and k8, which joins nothing.
BRIDGE = [
    ("k2", FLOOD_001, "k2", False), ("k7", FLOOD_001 + " ", "k2", False),
    ("k4", "We are going to flood the zone in sanctuary jurisdictions with agents, Lyons promised.", "k4", False),
    ("k9", UNRELATED, "k9", False),
    ("k1", FLOOD_000, None, True), ("k3", "We’re definitely going to flood the zone in sanctuary jurisdictions.", None, True),
    ("k5", SANCTUARY_000, None, True), ("k6", SANCTUARY_001, None, True), ("k8", "Thank you all very much.", None, True),
]


def test_star_pairs_pair_each_bucket_with_its_smallest_node_where_the_run_has_a_claim() -> None:
    band = np.array([7, 7, 7, 8, 8, 9, 9, 5], np.int64)
    node = np.array([30, 10, 20, 40, 50, 60, 70, 80], np.int64)
    in_run = np.array([False, False, True, False, False, True, True, True])
    # Band 7: a star around 10; band 8 has no claim of the run; band 5 is a singleton.
    assert star_pairs(band, node, in_run).tolist() == [[10, 20], [10, 30], [60, 70]]
    # A pair shared by two bands comes out once; nothing in, nothing out.
    assert star_pairs(np.array([1, 1, 2, 2]), np.array([3, 4, 3, 4]), np.array([True] * 4)).tolist() == [[3, 4]]
    assert star_pairs(np.array([], np.int64), np.array([], np.int64), np.array([], bool)).shape == (0, 2)


def test_distinct_pairs_are_the_sorted_set_of_the_pairs_found() -> None:
    # What the driver keeps of the partitions' pairs: a pair found in two partitions once.
    rng = np.random.default_rng(7)
    left = rng.integers(0, 2**59, 400, dtype=np.int64)[rng.integers(0, 400, 3000)]
    right = left + rng.integers(1, 4, 3000)
    kept = distinct_pairs(left, right)
    assert kept.dtype == np.int64
    assert [tuple(pair) for pair in kept.tolist()] == sorted(set(zip(left.tolist(), right.tolist(), strict=True)))
    assert distinct_pairs(np.array([], np.int64), np.array([], np.int64)).shape == (0, 2)


def test_resolve_clusters_bridges_stored_clusters_and_keys_each_cluster_by_its_smallest_key() -> None:
    memberships, claims = scenario(BRIDGE)
    clustering = resolve_clusters(python_pairs(memberships), claims)
    # k8 joined nothing: it keeps its own key, which the merge gives it (tests/pipeline/test_db_merge.py).
    assert {NAMES[key]: NAMES[cluster] for key, cluster in clustering.assigned.items()} == {"k1": "k1", "k3": "k1", "k5": "k5", "k6": "k5"}
    assert [(NAMES[old], NAMES[new]) for old, new in clustering.remap] == [("k2", "k1"), ("k4", "k1")]


def test_resolve_clusters_with_nothing_stored_pairs_the_run_among_itself() -> None:
    memberships, claims = scenario([
        ("k1", FLOOD_000, None, True), ("k2", FLOOD_001, None, True), ("k5", SANCTUARY_000, None, True),
        ("k6", SANCTUARY_001, None, True), ("k8", UNRELATED, None, True),
    ])
    clustering = resolve_clusters(python_pairs(memberships), claims)
    assert {NAMES[key]: NAMES[cluster] for key, cluster in clustering.assigned.items()} == {"k1": "k1", "k2": "k1", "k5": "k5", "k6": "k5"}
    assert clustering.remap == []


def test_resolve_clusters_checks_every_candidate_exactly() -> None:
    # k3 shares a band with k1 and k2 but is too different from them; a node two keys share
    # (a 60-bit collision) has both claims checked.
    tokens = {"k1": cluster_tokens(FLOOD_000), "k2": cluster_tokens(FLOOD_002), "k3": cluster_tokens(UNRELATED)}
    claims = {NODES[name]: [NodeClaim(KEYS[name], value, True, None)] for name, value in tokens.items()}
    claims[NODES["k2"]].append(NodeClaim(KEYS["k9"], cluster_tokens(FLOOD_001), True, None))
    clustering = resolve_clusters([(NODES["k1"], NODES["k2"]), (NODES["k1"], NODES["k3"])], claims)
    assert {NAMES[key]: NAMES[cluster] for key, cluster in clustering.assigned.items()} == {"k1": "k1", "k2": "k1", "k9": "k1"}


def test_candidate_pairs_in_spark_are_the_python_stars(spark) -> None:  # type: ignore[no-untyped-def]
    memberships, claims = scenario(BRIDGE)
    # A run claim that shares a band with a stored pair pulls the stored pair in too.
    memberships_df = spark.createDataFrame(memberships, MEMBERSHIP_SCHEMA)
    pairs = candidate_pairs(memberships_df, partitions=3)
    # Each partition's pairs are distinct; a pair whose claims share bands in two partitions
    # comes out of both.
    assertDataFrameEqual(pairs.distinct(), spark.createDataFrame(sorted(set(python_pairs(memberships))), CANDIDATE_SCHEMA))
    clustering = resolve_clusters([(row.src, row.dst) for row in pairs.collect()], claims)
    assert [(NAMES[old], NAMES[new]) for old, new in clustering.remap] == [("k2", "k1"), ("k4", "k1")]


def test_memberships_are_one_row_per_node_and_band_key() -> None:
    batch = udfs.memberships([(NODES["k1"], [1, 2, 3]), (NODES["k2"], [])], in_run=False)
    assert batch.to_pydict() == {"node": [NODES["k1"]] * 3, "band": [1, 2, 3], "in_run": [False] * 3}
