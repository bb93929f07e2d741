"""What makes two claims "the same claim": token sets and the similarity rule.

A claim's tokens are its content words (the quoted words when the sentence is mostly a
quotation, so "…,” he said" and "…,” Lyons told Carr" do not matter), lower-cased, with
digits' thousands separators removed, plus one token per parsed quantity so paraphrased
statistics ("nearly 1,500 people" / "almost 1,500 people") share a strong token.

Two claims belong together when the Jaccard similarity of their token sets is at least
SIMILARITY_THRESHOLD. The Spark job finds candidate pairs with MinHashLSH and keeps those
whose exact Jaccard distance passes; `cluster_records` below does the same in one process
with an inverted index for blocking, for the command line.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

SIMILARITY_THRESHOLD = 0.5
MIN_TOKENS = 3
# Tokens that appear in most claims say nothing about which claim it is.
BLOCKING_MAX_POSTINGS = 5000

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


class DisjointSet:
    """Union-find whose representative is always the smallest key, as in the Spark job."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.parent = {key: key for key in keys}

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
            low, high = (a, b) if a < b else (b, a)
            self.parent[high] = low


def cluster_records(tokens_by_key: dict[str, list[str]]) -> dict[str, str]:
    """claim_key -> cluster_key (the smallest claim_key of its connected component)."""
    postings: dict[str, list[str]] = defaultdict(list)
    for key, tokens in tokens_by_key.items():
        if clusterable(tokens):
            for token in tokens:
                postings[token].append(key)
    clusters = DisjointSet(tokens_by_key)
    for key, tokens in tokens_by_key.items():
        if not clusterable(tokens):
            continue
        candidates = {
            other for token in tokens if len(postings[token]) <= BLOCKING_MAX_POSTINGS for other in postings[token] if other > key
        }
        for other in candidates:
            if jaccard(tokens, tokens_by_key[other]) >= SIMILARITY_THRESHOLD:
                clusters.union(key, other)
    return {key: clusters.find(key) for key in tokens_by_key}
