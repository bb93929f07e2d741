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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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


def cluster_tokens(sentence: str, quantities: Iterable[Mapping[str, Any]] = ()) -> list[str]:
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


BAND_CHUNK = 2000
_TOKEN_HASHES: dict[str, int] = {}
MAX_CACHED_TOKENS = 500_000
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


def token_hash(token: str) -> int:
    """Stable across processes and machines (Python's hash() is salted per process)."""
    value = _TOKEN_HASHES.get(token)
    if value is None:
        if len(_TOKEN_HASHES) >= MAX_CACHED_TOKENS:
            _TOKEN_HASHES.clear()
        value = int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little") % LSH_PRIME
        _TOKEN_HASHES[token] = value
    return value


def _mix(values: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise on uint64 (wraps mod 2^64 by design)."""
    values = (values ^ (values >> np.uint64(30))) * _MIX_1
    values = (values ^ (values >> np.uint64(27))) * _MIX_2
    return values ^ (values >> np.uint64(31))


def band_keys_batch(token_lists: Sequence[Sequence[str]]) -> list[list[int]]:
    """band_keys for many token sets at once: one numpy pass over all their tokens.

    Each band key is a 64-bit mix of the band number and its LSH_ROWS minimums, so two
    claims share a key exactly when that band of their signatures agrees (up to 64-bit
    hash collisions).
    """
    if len(token_lists) > BAND_CHUNK:
        # Chunks keep the (bands x rows, tokens) matrix small.
        return [keys for at in range(0, len(token_lists), BAND_CHUNK) for keys in band_keys_batch(token_lists[at : at + BAND_CHUNK])]
    result: list[list[int]] = [[] for _ in token_lists]
    chosen = [i for i, tokens in enumerate(token_lists) if clusterable(tokens)]
    if not chosen:
        return result
    lengths = np.fromiter((len(token_lists[i]) for i in chosen), np.int64, len(chosen))
    hashes = np.fromiter((token_hash(t) for i in chosen for t in token_lists[i]), np.int64, int(lengths.sum()))
    permuted = (_PERMUTATIONS[0][:, None] * hashes[None, :] + _PERMUTATIONS[1][:, None]) % LSH_PRIME
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    minimums = np.minimum.reduceat(permuted, starts, axis=1).T.reshape(len(chosen), LSH_BANDS, LSH_ROWS).astype(np.uint64)
    keys = _mix(np.arange(LSH_BANDS, dtype=np.uint64)[None, :] + np.uint64(0x9E3779B97F4A7C15))
    for row in range(LSH_ROWS):
        keys = _mix(keys ^ minimums[:, :, row])
    for i, band_row in zip(chosen, keys.view(np.int64).tolist(), strict=True):
        result[i] = band_row
    return result


def signatures(claims: Iterable[tuple[str, Iterable[Mapping[str, Any]]]]) -> list[tuple[list[str], list[int]]]:
    """(tokens, band keys) of (sentence, quantities) pairs, the band keys in one batch."""
    tokens = [cluster_tokens(sentence, quantities) for sentence, quantities in claims]
    return list(zip(tokens, band_keys_batch(tokens), strict=True))


def band_keys(tokens: Sequence[str]) -> list[int]:
    """One key per band of the token set's MinHash signature; none for too-short claims."""
    return band_keys_batch([tokens])[0]


def candidate_pairs(bands_by_key: dict[str, list[int]], query_keys: set[str] | None = None) -> set[tuple[str, str]]:
    """(centre, member) pairs: in every band bucket holding a query claim, each member is
    paired with the bucket's smallest key (a star, linear in the bucket size)."""
    buckets: dict[int, list[str]] = defaultdict(list)
    for key, bands in bands_by_key.items():
        for band in bands:
            buckets[band].append(key)
    pairs: set[tuple[str, str]] = set()
    for members in buckets.values():
        if len(members) < 2 or (query_keys is not None and query_keys.isdisjoint(members)):
            continue
        centre = min(members)
        pairs.update((centre, member) for member in members if member != centre)
    return pairs


def claim_node(claim_key: str) -> int:
    """A claim's node number: the first 60 bits of its key (a sha1 in hex), so nodes sort as
    keys do and the band shuffle moves numbers, not strings. Two claims share one with
    probability about n^2 / 2^61 (4e-5 at ten million claims); the clustering then looks up
    both and the exact Jaccard still decides (pipeline/sql/read_*_candidates.sql compute the same in SQL)."""
    return int(claim_key[:15], 16)


def star_pairs(band: np.ndarray, node: np.ndarray, in_run: np.ndarray) -> np.ndarray:
    """Candidate pairs (centre, member) among band memberships, as an (n, 2) int64 array of
    distinct rows: in every band bucket that holds a claim of the run (in_run) and at least
    two claims, each member is paired with the bucket's smallest node (a star, linear in the
    bucket, not a clique). The rule of candidate_pairs, on node numbers; the Spark job runs
    it on each band partition (pipeline.udfs.find_stars)."""
    if len(band) == 0:
        return np.zeros((0, 2), np.int64)
    order = np.lexsort((node, band))
    band, node, in_run = band[order], node[order], in_run[order]
    starts = np.r_[True, band[1:] != band[:-1]]
    group = np.cumsum(starts) - 1
    size = np.bincount(group)
    has_run = np.bincount(group, weights=in_run.astype(np.float64)) > 0
    centre = node[starts][group]
    keep = (size[group] >= 2) & has_run[group] & (node != centre)
    if not keep.any():
        return np.zeros((0, 2), np.int64)
    return distinct_pairs(centre[keep], node[keep])


def distinct_pairs(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Pairs (left[i], right[i]) as an (n, 2) int64 array of distinct rows in order. Sorting
    the two columns and dropping repeats costs a fraction of np.unique(..., axis=0), which
    sorts a structured copy of the rows, and far less than a Python set of tuples."""
    if len(left) == 0:
        return np.zeros((0, 2), np.int64)
    order = np.lexsort((right, left))
    left, right = left[order], right[order]
    first = np.r_[True, (left[1:] != left[:-1]) | (right[1:] != right[:-1])]
    return np.stack([left[first], right[first]], axis=1).astype(np.int64, copy=False)


class DisjointSet:
    """Union-find over claim keys; each component's label is the smallest label in it.

    `apart` holds pairs of labels (stored cluster keys) a reviewer split apart
    (claim_cluster_splits): a union that would put both in one component is refused."""

    def __init__(self, labels: dict[str, str], apart: Iterable[tuple[str, str]] = ()) -> None:
        self.parent = {key: key for key in labels}
        self.label = dict(labels)
        self.members = {key: {label} for key, label in labels.items()}
        self.apart: dict[str, set[str]] = {}
        for left, right in apart:
            self.apart.setdefault(left, set()).add(right)
            self.apart.setdefault(right, set()).add(left)

    def find(self, key: str) -> str:
        root = key
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[key] != root:
            self.parent[key], key = root, self.parent[key]
        return root

    def union(self, left: str, right: str) -> bool:
        """Join the two components; False when a split keeps them apart."""
        a, b = self.find(left), self.find(right)
        if a == b:
            return True
        if self.apart and any(self.apart.get(label, set()) & self.members[b] for label in self.members[a]):
            return False
        self.parent[b] = a
        self.label[a] = min(self.label[a], self.label[b])
        self.members[a] |= self.members.pop(b)
        return True


def components(edges: Iterable[tuple[str, str]], labels: dict[str, str], apart: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """key -> label of its connected component (the smallest label in it).

    `labels` gives every node its starting label: a stored claim its cluster key, a new
    claim its own key. Because a cluster key is the smallest claim key of its cluster,
    the result is the smallest claim key of each merged cluster. An edge between components
    holding two labels in `apart` is skipped (edges come strongest first, so a claim like
    both sides of a split joins the one it is most like).
    """
    forest = DisjointSet(labels, apart)
    for left, right in edges:
        forest.union(left, right)
    return {key: forest.label[forest.find(key)] for key in labels}


@dataclass(frozen=True)
class NodeClaim:
    """A claim behind a candidate node, as the clustering's final step needs it: tokens
    (the run's, for a claim the run extracted, else the stored signature), whether the run
    extracted it, and its stored cluster key (None when it is not stored yet)."""

    claim_key: str
    tokens: Sequence[str]
    in_run: bool
    stored_cluster: str | None
    # The clusters a reviewer split this claim's stored cluster apart from (claim_cluster_splits).
    apart_from: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Clustering:
    """What a run's clustering decided.

    assigned: claim_key -> cluster_key for each of the run's claims that joined others;
    remap: (old_key, new_key) for each stored cluster that merged into another.
    Every other claim of the run keeps its stored cluster key (after the remap), or, if new,
    forms a cluster of its own under its claim key; the merge applies both rules
    (pipeline/sql/run_staged.sql).
    """

    assigned: dict[str, str]
    remap: list[tuple[str, str]]


def resolve_clusters(pairs: Iterable[tuple[int, int]], claims: Mapping[int, Sequence[NodeClaim]]) -> Clustering:
    """The exact step after the LSH: candidate node pairs whose claims' token sets reach
    SIMILARITY_THRESHOLD become edges, and union-find joins them with the stored clusters.

    A cluster's key is the smallest claim key in it (a stored claim starts from its stored
    cluster key, a new one from its own key), so the result does not depend on the order
    articles arrived in. `claims` maps each node of `pairs` to its claims (normally one;
    more only if two keys share a node number).
    """
    scored: list[tuple[float, str, str]] = []
    labels: dict[str, str] = {}
    stored: set[str] = set()
    in_run: set[str] = set()
    apart: set[tuple[str, str]] = set()
    for left, right in pairs:
        for a in claims.get(left, ()):
            for b in claims.get(right, ()):
                if a.claim_key == b.claim_key or (similarity := jaccard(a.tokens, b.tokens)) < SIMILARITY_THRESHOLD:
                    continue
                scored.append((similarity, a.claim_key, b.claim_key))
                for claim in (a, b):
                    labels[claim.claim_key] = claim.stored_cluster or claim.claim_key
                    apart.update((labels[claim.claim_key], other) for other in claim.apart_from)
                    if claim.stored_cluster is not None:
                        stored.add(claim.claim_key)
                    if claim.in_run:
                        in_run.add(claim.claim_key)
    # Strongest first, then by key: the order only matters where a split refuses a union.
    edges = [(a, b) for _, a, b in sorted(scored, key=lambda edge: (-edge[0], edge[1], edge[2]))]
    final = components(edges, labels, apart)
    remap = sorted({(labels[key], final[key]) for key in stored if labels[key] != final[key]})
    return Clustering(assigned={key: final[key] for key in sorted(in_run)}, remap=remap)


def cluster_records(tokens_by_key: dict[str, list[str]]) -> dict[str, str]:
    """claim_key -> cluster_key for claims clustered among themselves (the command line)."""
    bands = dict(zip(tokens_by_key, band_keys_batch(list(tokens_by_key.values())), strict=True))
    edges = [
        (left, right)
        for left, right in candidate_pairs(bands)
        if jaccard(tokens_by_key[left], tokens_by_key[right]) >= SIMILARITY_THRESHOLD
    ]
    return components(edges, {key: key for key in tokens_by_key})
