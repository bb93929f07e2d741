"""Where a run's data comes from and goes: the job's steps (pipeline.jobs.extract_claims)
read and write only through a RunStore.

PostgreSQL in production (pipeline.db.PostgresRun). InMemoryRun holds made-up or inline
articles (and an inline library) and writes nothing: the class-archive warm-up (pipeline/jobs/warm_classes.py) runs
the real job's steps on it, and the tests run them without a database. A store is pickled
into the Spark tasks that read articles, write claims and read stored memberships.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pipeline.nlp.checkworthiness import Scorer, load_scorer
from pipeline.nlp.clustering import Clustering, NodeClaim, claim_node, signatures


class RunStore(Protocol):
    def read_articles(self, *, buckets: int, bucket: int) -> Iterator[tuple[Any, ...]]:
        """One id bucket of the run's articles: (article_id, content_hash, text, outlet, author). On executors."""
        ...

    def write_claims(self, rows: Iterable[Sequence[Any]]) -> int:
        """Stage claim rows (pipeline.staging.CLAIM_COLUMNS order), idempotently; returns how many. On executors."""
        ...

    def read_stored_memberships(self) -> list[tuple[int, int]]:
        """(node, band key) of the stored claims sharing a band key with a staged claim of the run. On an executor."""
        ...

    def read_candidate_claims(self, nodes: Iterable[int]) -> dict[int, list[NodeClaim]]:
        """node -> the claims behind it (the run's and the stored), for the exact step."""
        ...

    def merge(self, clustering: Clustering, timings: dict[str, float] | None = None) -> tuple[int, int]:
        """Merge the staged claims under the clustering: (distinct claims, claims written);
        `timings`, if given, receives the seconds of the merge's steps."""
        ...

    def read_library(self) -> list[dict[str, str]]:
        """The fact-check library as pipeline.nlp.matching reads it (id, claim, title, summary,
        rating, url, date, publisher), plus own_claim_key for the desk's own verdicts. On the driver."""
        ...

    def read_article_dates(self) -> list[tuple[int, str]]:
        """(article_id, ISO publication date) of the run's dated articles. On the driver."""
        ...

    def read_match_index(self, key: str) -> bytes | None:
        """The kept matching index (MatchIndex.to_bytes) of the library state `key`, or None. On the driver."""
        ...

    def write_match_index(self, key: str, data: bytes, entries: int) -> None:
        """Keep a built matching index under its library key. On the driver."""
        ...

    def read_matching_artifact_dir(self) -> str:
        """The active matching model version's artifact directory, relative to the model store
        ("" for the shipped artifact). On the driver."""
        ...

    def write_matches(self, rows: Sequence[tuple[str, int, float, int]]) -> int:
        """Store (claim_key, factcheck_id, score, rank) matches of merged claims, idempotently,
        never over a reviewer's decision; returns the rows written. On the driver."""
        ...


@dataclass(frozen=True)
class StoredClaim:
    claim_key: str
    sentence: str
    cluster_key: str


@dataclass
class InMemoryRun:
    """A run over inline articles against inline stored claims; nothing is written. The
    run's candidate claims are extracted again on the driver (executors' writes do not come
    back), with the shipped model unless a scorer is given. merged: the last clustering."""

    articles: Sequence[tuple[Any, ...]]
    stored: Sequence[StoredClaim] = ()
    scorer: Scorer | None = None
    merged: list[Clustering] = field(default_factory=list)
    library: Sequence[Mapping[str, str]] = ()
    article_dates: Mapping[int, str] = field(default_factory=dict)
    matches: list[tuple[str, int, float, int]] = field(default_factory=list)
    # Kept matching indexes by library key, as factcheck_match_indexes holds them.
    match_indexes: dict[str, bytes] = field(default_factory=dict)
    # The active matching version's artifact, relative to the model store ("": shipped).
    matching_artifact_dir: str = ""

    def read_articles(self, *, buckets: int, bucket: int) -> Iterator[tuple[Any, ...]]:
        return iter([article for article in self.articles if int(article[0]) % buckets == bucket])

    def write_claims(self, rows: Iterable[Sequence[Any]]) -> int:
        return sum(1 for _ in rows)

    def _stored_signatures(self) -> list[tuple[list[str], list[int]]]:
        return signatures((claim.sentence, []) for claim in self.stored)

    def read_stored_memberships(self) -> list[tuple[int, int]]:
        return [
            (claim_node(claim.claim_key), band)
            for claim, (_, bands) in zip(self.stored, self._stored_signatures(), strict=True)
            for band in bands
        ]

    def read_candidate_claims(self, nodes: Iterable[int]) -> dict[int, list[NodeClaim]]:
        from pipeline.udfs import claim_batch

        wanted = set(nodes)
        _, batch = claim_batch(list(self.articles), self.scorer or load_scorer())
        claims: dict[int, list[NodeClaim]] = {}
        for key, tokens in zip(batch.column("claim_key").to_pylist(), batch.column("tokens").to_pylist(), strict=True):
            if claim_node(key) in wanted:
                claims.setdefault(claim_node(key), []).append(NodeClaim(key, tokens, True, None))
        for claim, (tokens, _) in zip(self.stored, self._stored_signatures(), strict=True):
            if claim_node(claim.claim_key) in wanted:
                claims.setdefault(claim_node(claim.claim_key), []).append(NodeClaim(claim.claim_key, tokens, False, claim.cluster_key))
        return claims

    def merge(self, clustering: Clustering, timings: dict[str, float] | None = None) -> tuple[int, int]:
        self.merged.append(clustering)
        return len(clustering.assigned), 0

    def read_library(self) -> list[dict[str, str]]:
        return [dict(entry) for entry in self.library]

    def read_article_dates(self) -> list[tuple[int, str]]:
        return sorted(self.article_dates.items())

    def read_match_index(self, key: str) -> bytes | None:
        return self.match_indexes.get(key)

    def write_match_index(self, key: str, data: bytes, entries: int) -> None:
        self.match_indexes[key] = data

    def read_matching_artifact_dir(self) -> str:
        return self.matching_artifact_dir

    def write_matches(self, rows: Sequence[tuple[str, int, float, int]]) -> int:
        """Keeps the last run's matches, sorted (they come back from the tasks in any order)."""
        self.matches = sorted(rows)
        return len(rows)


def stored_claims(sentences: Mapping[str, str]) -> list[StoredClaim]:
    """Stored claims each in its own cluster, from claim key -> sentence."""
    return [StoredClaim(key, sentence, key) for key, sentence in sentences.items()]
