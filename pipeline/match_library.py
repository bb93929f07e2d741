"""The fact-check library as a run's matching needs it: its index built once per library
state and kept in the store, instead of by every Python worker on every run.

    prepared = prepare_library(store, library, candidates)   # on the driver
    index = prepared.index()                                  # on each Python worker, once

The driver computes the library's key (pipeline.nlp.matching.library_key: its entries'
matched fields, the artifact, the index format), reads the index kept under that key
(factcheck_match_indexes through the RunStore) and checks it (checksum, format, artifact,
the key it was built for: its header alone); if there is none, or it fails, the driver builds it, keeps it, and goes on with the fresh bytes. The bytes
travel to the executors in the job's broadcast, so executors on other machines need neither
the driver's disk nor a build of their own; each Python worker reads them into a MatchIndex
once (from_bytes checks them again against the key). A change to the library (an import, an
approval, an edit, a deletion) changes the key, so the next run builds the new index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pipeline.nlp.matching import IndexFormatError, MatchConfig, MatchIndex, check_index_bytes, library_key, model_store_root, read_artifact

if TYPE_CHECKING:
    from pipeline.nlp.matching import Artifact


class IndexStore(Protocol):
    def read_match_index(self, key: str) -> bytes | None: ...

    def write_match_index(self, key: str, data: bytes, entries: int) -> None: ...

    def read_matching_artifact_dir(self) -> str: ...


@dataclass(frozen=True)
class PreparedLibrary:
    """What the match step ships to its tasks: the library's index as bytes, under its key,
    and which entries are the desk's own verdicts on a claim (id -> claim key)."""

    key: str
    data: bytes
    own: Mapping[str, str]
    candidates: int
    # Whether this run had to build the index (none kept for this library, or a damaged one).
    built: bool = field(default=False, compare=False)
    # The active matching version's artifact (absolute; "": the shipped one). Executors read it
    # from there, so the model store must be on every machine that matches (as the repo is).
    artifact_dir: str = ""

    def index(self, artifact: Artifact | None = None) -> MatchIndex:
        if artifact is None and self.artifact_dir:
            artifact = read_artifact(self.artifact_dir)
        return MatchIndex.from_bytes(self.data, key=self.key, artifact=artifact, config=MatchConfig(candidates=self.candidates))


def own_verdicts(library: Sequence[Mapping[str, str]]) -> dict[str, str]:
    return {str(entry["id"]): str(entry["own_claim_key"]) for entry in library if entry.get("own_claim_key")}


def prepare_library(store: IndexStore, library: Sequence[Mapping[str, str]], candidates: int) -> PreparedLibrary:
    """The library's kept index, or a fresh one built, kept and returned (see the module), with
    the active matching version's artifact (a promotion changes the artifact, so the key)."""
    relative = store.read_matching_artifact_dir()
    artifact_dir = str(model_store_root() / relative) if relative else ""
    artifact = read_artifact(artifact_dir or None)
    config = MatchConfig(candidates=candidates)
    key = library_key(library, artifact, config)
    data = store.read_match_index(key)
    built = data is None
    if data is not None:
        try:
            check_index_bytes(data, key=key, artifact=artifact, config=config)
        except IndexFormatError:
            built = True  # damaged, or not this library's: never trusted, built again
    if built:
        data = MatchIndex.build(library, artifact, config).to_bytes(key)
        store.write_match_index(key, data, len(library))
    assert data is not None
    return PreparedLibrary(key, data, own_verdicts(library), candidates, built, artifact_dir)


def prepared_from_rows(library: Sequence[Mapping[str, str]], candidates: int) -> PreparedLibrary:
    """A library prepared with nowhere to keep its index (tests, one-off runs)."""
    return prepare_library(_NoStore(), library, candidates)


class _NoStore:
    def read_match_index(self, key: str) -> bytes | None:
        return None

    def write_match_index(self, key: str, data: bytes, entries: int) -> None:
        pass

    def read_matching_artifact_dir(self) -> str:
        return ""
