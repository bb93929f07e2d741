"""Matching queued claims against library fact-checks, with the pipeline's own engine.

Pure: plain data in, plain data out, no database. The engine is pipeline.nlp.matching
(MatchIndex.build(entries, config=MatchConfig(candidates=N)), index.match(texts, top, dates)),
the same code the Spark job and `python -m pipeline match` run. Called with the job's settings
(top, candidates) and the job's claim dates (the day its article was published, UTC), a claim
gets the same matches whichever path found it (pipeline.udfs.make_claim_matcher).
Where that module is not installed, nothing matches (and the caller logs it).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

ENGINE_MODULE = "pipeline.nlp.matching"


@dataclass(frozen=True)
class LibraryEntry:
    """One fact-check as the engine reads it (the LIBRARY.jsonl fields of `python -m pipeline match`)."""

    id: int
    claim: str
    title: str = ""
    summary: str = ""
    rating: str = ""
    url: str = ""
    date: str = ""
    publisher: str = ""
    # The claim whose own approved verdict this is (the desk's entries): never matched to it.
    own_claim_id: int | None = None

    def as_engine_entry(self) -> dict[str, str]:
        return {
            "id": str(self.id), "claim": self.claim, "title": self.title, "summary": self.summary,
            "rating": self.rating, "url": self.url, "date": self.date, "publisher": self.publisher,
        }


@dataclass(frozen=True)
class ClaimText:
    id: int
    text: str
    # When the claim was made: its article's publication day (UTC), as the Spark job dates it.
    date: date | None = None


@dataclass(frozen=True)
class MatchRow:
    claim_id: int
    factcheck_id: int
    score: float
    rank: int  # 1 = the claim's best match


def engine_available() -> bool:
    return importlib.util.find_spec(ENGINE_MODULE) is not None


def _engine() -> Any:
    return importlib.import_module(ENGINE_MODULE)


def match_claims_against(
    factchecks: Sequence[LibraryEntry], claims: Sequence[ClaimText], *, top: int, candidates: int, min_score: float, artifact_dir: str = ""
) -> list[MatchRow]:
    """Each claim's best `top` fact-checks among `factchecks` scoring at least `min_score`,
    best first, ranked 1..top, with `candidates` BM25 candidates re-ranked per claim, by the
    artifact in `artifact_dir` (the active matching version's; "" the shipped one). Empty
    when the engine is not installed."""
    if not factchecks or not claims or not engine_available():
        return []
    index = _index(factchecks, candidates, artifact_dir)
    return _matched(index, factchecks, claims, top=top, min_score=min_score)


def match_new_entries(
    factchecks: Sequence[LibraryEntry], claims: Iterable[ClaimText], new_ids: set[int], *, top: int, candidates: int, min_score: float,
    artifact_dir: str = "",
) -> list[MatchRow]:
    """match_claims_against for the claims whose re-ranked candidates include one of `new_ids`,
    and only those: the rows a full run gives them, at the cost of what the new entries add.

    The whole library is indexed (every score is the one a full run gives), but a claim is
    re-ranked only when one of the new entries is among its BM25 candidates, the step that
    decides which entries the re-ranker ever sees for it; a claim without one keeps the top list
    it has. Claims are read in blocks, so the queue never sits in memory whole."""
    if not factchecks or not new_ids or not engine_available():
        return []
    engine = _engine()
    index = _index(factchecks, candidates, artifact_dir)
    new_rows = np.array([row for row, raw_id in enumerate(index.ids) if int(raw_id) in new_ids], np.int64)
    if not len(new_rows):
        return []
    own = any(entry.own_claim_id is not None for entry in factchecks)
    limit = max(top + 1 if own else top, index.config.candidates)  # what MatchIndex.match asks for
    new_columns = index.combined[:, new_rows]  # terms x new entries
    selected: list[ClaimText] = []
    for block in _blocks(claims, CLAIM_BLOCK):
        query = index.query_terms([engine.normalise(claim.text) for claim in block])
        # A claim that shares no term with a new entry cannot have it among its candidates.
        sharing = np.flatnonzero((query @ new_columns).getnnz(axis=1))
        if not len(sharing):
            continue
        q_rows, d_rows, _ = index.candidates(query[sharing], limit)
        hits = np.unique(q_rows[np.isin(d_rows, new_rows)])
        selected.extend(block[int(sharing[row])] for row in hits)
    return _matched(index, factchecks, selected, top=top, min_score=min_score) if selected else []


CLAIM_BLOCK = 5000


def _blocks(items: Iterable[ClaimText], size: int) -> Iterator[list[ClaimText]]:
    block: list[ClaimText] = []
    for item in items:
        block.append(item)
        if len(block) >= size:
            yield block
            block = []
    if block:
        yield block


def _index(factchecks: Sequence[LibraryEntry], candidates: int, artifact_dir: str) -> Any:
    """The library's index, with the artifact in `artifact_dir` (the active matching
    version's; "" the shipped one)."""
    engine = _engine()
    artifact = engine.read_artifact(artifact_dir) if artifact_dir else None
    return engine.MatchIndex.build([entry.as_engine_entry() for entry in factchecks], artifact, config=engine.MatchConfig(candidates=candidates))


def _matched(index: Any, factchecks: Sequence[LibraryEntry], claims: Sequence[ClaimText], *, top: int, min_score: float) -> list[MatchRow]:
    own = {entry.id: entry.own_claim_id for entry in factchecks if entry.own_claim_id is not None}
    # One more candidate than kept: a claim's own verdict, when in the library, is dropped.
    results = index.match([claim.text for claim in claims], top + 1 if own else top, [claim.date for claim in claims], min_score)
    rows: list[MatchRow] = []
    for claim, found in zip(claims, results, strict=True):
        rank = 0
        for raw_id, score in found:
            factcheck_id = int(raw_id)
            if own.get(factcheck_id) == claim.id:
                continue
            rank += 1
            if rank > top:
                break
            rows.append(MatchRow(claim_id=claim.id, factcheck_id=factcheck_id, score=float(score), rank=rank))
    return rows
