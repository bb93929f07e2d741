"""What makes two claims "the same claim": token sets and the similarity rule.

A claim's tokens are its content words (the quoted words when the sentence is mostly a
quotation, so "…,” he said" and "…,” Lyons told Carr" do not matter), lower-cased, with
digits' thousands separators removed, plus one token per parsed quantity so paraphrased
statistics ("nearly 1,500 people" / "almost 1,500 people") share a strong token.

Two claims belong together when the Jaccard similarity of their token sets is at least
SIMILARITY_THRESHOLD. Candidate pairs come from banded MinHash (never all pairs); the exact
Jaccard then decides, and connected components make the clusters. The Spark job and the
command line share every function here, so they cluster identically.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

SIMILARITY_THRESHOLD = 0.5
MIN_TOKENS = 3

QUOTED = re.compile(r"[“\"]([^”\"]+)(?:[”\"]|$)")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?(?:\.\d+)?")
STOPWORDS = frozenset(
    """
    a an and or but the of to in on at for with as by from into about than then so is are was were
    be been being am do did has have had will would can could should may might it its this that
    these those there here which who whom whose what when where how he she they we you i me him her
    them us his their our your my said says say told tells added explained stated according asked
    noted also just very really even still
    """.split()
)


def claim_text(sentence: str) -> str:
    """The quoted words when they make up most of the sentence, else the whole sentence."""
    quoted = " ".join(match.group(1) for match in QUOTED.finditer(sentence))
    return quoted if len(quoted) >= 0.5 * len(sentence) else sentence


def cluster_tokens(sentence: str, quantities: Iterable[dict[str, object]] = ()) -> list[str]:
    text = THOUSANDS.sub("", claim_text(sentence).lower().replace("’", "'"))
    tokens = {word for word in WORD.findall(text) if word not in STOPWORDS}
    for quantity in quantities:
        tokens.add(f"#{float(quantity['value']):g}:{quantity.get('unit', '')}")
    return sorted(tokens)


def jaccard(left: Sequence[str], right: Sequence[str]) -> float:
    a, b = set(left), set(right)
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def clusterable(tokens: Sequence[str]) -> bool:
    return len(tokens) >= MIN_TOKENS


# Banded MinHash: two claims become candidates when all LSH_ROWS minimums of one of
# LSH_BANDS bands agree, which happens with probability 1 - (1 - J^r)^b for Jaccard J:
# about 0.93 at J = 0.5, 0.99 at 0.6, 0.003 at 0.05 (r = 3, b = 20).
LSH_BANDS = 20
LSH_ROWS = 3
LSH_PRIME = 2_147_483_647  # 2^31 - 1: a * x + b stays below 2^63 for a, b, x below it
_PERMUTATIONS = np.random.default_rng(20251122).integers(1, LSH_PRIME, size=(2, LSH_BANDS * LSH_ROWS), dtype=np.int64)


def token_hash(token: str) -> int:
    """Stable across processes and machines (Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little") % LSH_PRIME


def band_keys(tokens: Sequence[str]) -> list[int]:
    """One key per band of the token set's MinHash signature; none for too-short claims."""
    if not clusterable(tokens):
        return []
    hashes = np.fromiter((token_hash(token) for token in tokens), np.int64, len(tokens))
    minimums = ((_PERMUTATIONS[0][:, None] * hashes[None, :] + _PERMUTATIONS[1][:, None]) % LSH_PRIME).min(axis=1)
    keys = []
    for band, rows in enumerate(minimums.reshape(LSH_BANDS, LSH_ROWS).tolist()):
        digest = hashlib.blake2b(repr((band, rows)).encode(), digest_size=8).digest()
        keys.append(int.from_bytes(digest, "little", signed=True))
    return keys


def candidate_pairs(bands_by_key: dict[str, list[int]], query_keys: set[str] | None = None) -> set[tuple[str, str]]:
    """(centre, member) pairs: in every band bucket holding a query claim, each member is
    paired with the bucket's smallest key (a star, linear in the bucket size)."""
    buckets: dict[int, list[str]] = defaultdict(list)
    for key, bands in bands_by_key.items():
        for band in bands:
            buckets[band].append(key)
    pairs = set()
    for members in buckets.values():
        if len(members) < 2 or (query_keys is not None and query_keys.isdisjoint(members)):
            continue
        centre = min(members)
        pairs.update((centre, member) for member in members if member != centre)
    return pairs


class DisjointSet:
    """Union-find over claim keys; each component's label is the smallest label in it."""

    def __init__(self, labels: dict[str, str]) -> None:
        self.parent = {key: key for key in labels}
        self.label = dict(labels)

    def find(self, key: str) -> str:
        root = key
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[key] != root:
            self.parent[key], key = root, self.parent[key]
        return root

    def union(self, left: str, right: str) -> None:
        a, b = self.find(left), self.find(right)
        if a != b:
            self.parent[b] = a
            self.label[a] = min(self.label[a], self.label[b])


def components(edges: Iterable[tuple[str, str]], labels: dict[str, str]) -> dict[str, str]:
    """key -> label of its connected component (the smallest label in it).

    `labels` gives every node its starting label: a stored claim its cluster key, a new
    claim its own key. Because a cluster key is the smallest claim key of its cluster,
    the result is the smallest claim key of each merged cluster.
    """
    forest = DisjointSet(labels)
    for left, right in edges:
        forest.union(left, right)
    return {key: forest.label[forest.find(key)] for key in labels}


def cluster_records(tokens_by_key: dict[str, list[str]]) -> dict[str, str]:
    """claim_key -> cluster_key for claims clustered among themselves (the command line)."""
    bands = {key: band_keys(tokens) for key, tokens in tokens_by_key.items()}
    edges = [
        (left, right)
        for left, right in candidate_pairs(bands)
        if jaccard(tokens_by_key[left], tokens_by_key[right]) >= SIMILARITY_THRESHOLD
    ]
    return components(edges, {key: key for key in tokens_by_key})
