"""Every piece of Python that runs per row inside Spark, Arrow-batched (mapInArrow).

Kept in one module so the hot paths are easy to find, test and measure. Each function here
is a thin adapter from Arrow batches to the plain-Python code in pipeline.extract and
pipeline.nlp, or to a RunStore (pipeline.run_store) for what the job reads and writes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, islice
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from pipeline.extract import ArticleText, extract_articles, quantities_json, signals_json
from pipeline.nlp.checkworthiness import Scorer, scorer_from_artifact
from pipeline.nlp.clustering import signatures, star_pairs
from pipeline.nlp.contestability import ContestabilityModel
from pipeline.schemas import ARTICLE_ARROW, CANDIDATE_ARROW, CLAIM_ARROW, MATCH_ARROW, MEMBERSHIP_ARROW
from pipeline.staging import CLAIM_COLUMN_NAMES
from pipeline.task_profile import TaskClock

if TYPE_CHECKING:
    from pipeline.match_library import PreparedLibrary
    from pipeline.nlp.matching import MatchIndex
    from pipeline.run_store import RunStore

MapInArrow = Callable[[Iterable[pa.RecordBatch]], Iterable[pa.RecordBatch]]
# An article as the extraction takes it: (article_id, content_hash, text, outlet, author).
Article = tuple[Any, ...]
# Articles per extraction chunk: scored together in one call (the scorer's cost is mostly per
# call and per new word) and handed on as one Arrow batch of claims.
ARTICLE_CHUNK = 250


def claim_batch(articles: Sequence[Article], scorer: Scorer, ranker: ContestabilityModel | None = None) -> tuple[int, pa.RecordBatch]:
    """(sentences, claims as a CLAIM_ARROW batch) for a chunk of articles.

    Splitting, attribution, scoring, typing, quantities and signatures all happen here
    (pipeline.extract and pipeline.nlp, the code the command line runs). Sentences of the
    whole chunk are scored in one call."""
    texts = [ArticleText(text or "", content_hash, outlet or "", author or "") for _, content_hash, text, outlet, author in articles]
    counts, claims = extract_articles(texts, scorer, ranker)
    claim_signatures = signatures((claim.sentence, claim.quantities) for _, claim in claims)
    columns: dict[str, list[Any]] = {
        "claim_key": [claim.claim_key for _, claim in claims],
        "article_id": [int(articles[article][0]) for article, _ in claims],
        "start_offset": [claim.start for _, claim in claims],
        "end_offset": [claim.end for _, claim in claims],
        "sentence": [claim.sentence for _, claim in claims],
        "speaker": [claim.speaker for _, claim in claims],
        "speaker_title": [claim.speaker_title for _, claim in claims],
        "attribution": [claim.attribution for _, claim in claims],
        "score": [claim.score for _, claim in claims],
        "claim_type": [claim.claim_type for _, claim in claims],
        "claim_types": [",".join(claim.claim_types) for _, claim in claims],
        "quantities": [quantities_json(claim.quantities) for _, claim in claims],
        "rank_signals": [signals_json(claim.signals) for _, claim in claims],
        "context": [claim.context for _, claim in claims],
        "tokens": [tokens for tokens, _ in claim_signatures],
        "bands": [bands for _, bands in claim_signatures],
    }
    return sum(counts), pa.RecordBatch.from_pydict(columns, schema=CLAIM_ARROW)


def batch_rows(batch: pa.RecordBatch) -> Iterator[tuple[Any, ...]]:
    """A CLAIM_ARROW batch's rows as tuples in pipeline.staging.CLAIM_COLUMNS order."""
    return zip(*(batch.column(name).to_pylist() for name in CLAIM_COLUMN_NAMES), strict=True)


def _scorer(model_ref: Any) -> Scorer:
    """`model_ref`: a Spark broadcast of the model Artifact, an Artifact or a Scorer."""
    model = getattr(model_ref, "value", model_ref)
    return model if isinstance(model, Scorer) else scorer_from_artifact(model)


def make_article_reader(store: RunStore, buckets: int) -> MapInArrow:
    """mapInArrow over bucket numbers: each task streams its id bucket of the run's articles
    from the store, ARTICLE_CHUNK to an ARTICLE_ARROW batch."""

    def read(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for bucket in batch.column("bucket").to_pylist():
                articles = store.read_articles(buckets=buckets, bucket=int(bucket))
                while chunk := list(islice(articles, ARTICLE_CHUNK)):
                    columns = zip(ARTICLE_ARROW, zip(*chunk, strict=True), strict=True)
                    yield pa.RecordBatch.from_arrays([pa.array(values, field.type) for field, values in columns], schema=ARTICLE_ARROW)

    return read


def make_claim_extractor(model_ref: Any, sentence_counter: Any = None, ranker_ref: Any = None) -> MapInArrow:
    """mapInArrow: articles (ARTICLE_ARROW) -> claims (CLAIM_ARROW), ARTICLE_CHUNK articles
    to a scoring call. No I/O. `sentence_counter`: an accumulator for the run's sentence
    count (a retried task may count twice; only that statistic is affected). `ranker_ref`:
    a contestability model or its broadcast (None: the shipped one)."""

    def extract(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        scorer = _scorer(model_ref)
        ranker = getattr(ranker_ref, "value", ranker_ref)
        for batch in batches:
            columns = [batch.column(name).to_pylist() for name in ARTICLE_ARROW.names]
            articles = iter(zip(*columns, strict=True))
            while chunk := list(islice(articles, ARTICLE_CHUNK)):
                sentences, claims = claim_batch(chunk, scorer, ranker)
                if sentence_counter is not None:
                    sentence_counter.add(sentences)
                yield claims

    return extract


def make_claim_stager(
    store: RunStore, buckets: int, model_ref: Any, sentence_counter: Any = None, ranker_ref: Any = None, task_records: Any = None
) -> MapInArrow:
    """mapInArrow over bucket numbers: a task's whole share of the extraction in one Python
    worker, source, transform and sink in turn. Its id bucket of articles is read from the
    store (make_article_reader), their claims extracted (make_claim_extractor, pure), written
    to staging in one transaction (a failed attempt leaves nothing, a retried one that had
    committed only writes duplicates, which the merge collapses), then handed on (CLAIM_ARROW)
    for the clustering and the matching.

    As three mapInArrow operators, the reader, the extractor and the writer each held a
    Python worker per task (the extractor's with the models loaded, and a reused worker keeps
    them), and every article and claim crossed to the JVM and back between them: one worker
    per task holds the process tree's peak memory about a third lower (docs/benchmarks.md).

    `task_records`: an accumulator (pipeline.task_profile.RecordsParam) each task adds its
    timed parts to, models, read, extract and write (None: nothing timed)."""
    read = make_article_reader(store, buckets)
    extract = make_claim_extractor(model_ref, sentence_counter, ranker_ref)

    def stage(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        # The COPY streams as the claims are extracted (the store reports progress as it
        # writes); the batches, a few megabytes a task, are handed on once the task's
        # transaction has committed.
        staged: list[pa.RecordBatch] = []
        clock = TaskClock()
        begun = time.perf_counter()
        # Loaded here so that their cost is told apart from the extraction's (a reused
        # worker has them already; the extractor then finds them loaded): the scorer, and the
        # ranker's broadcast read once.
        _scorer(model_ref)
        getattr(ranker_ref, "value", None)
        clock.add("models", time.perf_counter() - begun)

        def rows() -> Iterator[tuple[Any, ...]]:
            for claims in clock.timed(extract(clock.timed(read(batches), "read")), "extract"):
                staged.append(claims)
                yield from batch_rows(claims)

        begun = time.perf_counter()
        store.write_claims(rows())
        # What the COPY took beyond producing its rows (extract includes read: it pulls the articles).
        clock.add("write", time.perf_counter() - begun - clock.seconds["extract"])
        clock.add("extract", -clock.seconds["read"])
        if task_records is not None:
            task_records.add([clock.finish(claims=sum(batch.num_rows for batch in staged))])
        yield from staged

    return stage


def memberships(nodes: Iterable[tuple[int, Sequence[int]]], *, in_run: bool) -> pa.RecordBatch:
    """MEMBERSHIP_ARROW rows, one per (node, band key) of (node, band keys) pairs."""
    nodes = list(nodes)
    counts = np.fromiter((len(bands) for _, bands in nodes), np.int64, len(nodes))
    total = int(counts.sum())
    return pa.RecordBatch.from_arrays(
        [
            pa.array(np.repeat(np.fromiter((node for node, _ in nodes), np.int64, len(nodes)), counts)),
            pa.array(np.fromiter(chain.from_iterable(bands for _, bands in nodes), np.int64, total)),
            pa.array(np.full(total, in_run)),
        ],
        schema=MEMBERSHIP_ARROW,
    )


def make_stored_memberships_reader(store: RunStore) -> MapInArrow:
    """mapInArrow over one bucket: the band memberships of the stored claims that share a
    band key with the run's (RunStore.read_stored_memberships)."""

    def read(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for _ in batches:
            rows = store.read_stored_memberships()
            yield memberships(((node, [band]) for node, band in rows), in_run=False)

    return read


def find_stars(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow over one band partition of memberships (every membership of a band is in
    the same partition): its candidate pairs (clustering.star_pairs)."""
    table = pa.Table.from_batches(list(batches), schema=MEMBERSHIP_ARROW)
    pairs = star_pairs(
        table.column("band").to_numpy(), table.column("node").to_numpy(), table.column("in_run").to_numpy(zero_copy_only=False)
    )
    yield pa.RecordBatch.from_arrays([pa.array(pairs[:, 0]), pa.array(pairs[:, 1])], schema=CANDIDATE_ARROW)


# The index a Python worker read last, by library key and candidates: Spark reuses its Python
# workers, so a worker reads the index once per run however many tasks it gets. One index at
# a time keeps memory bounded.
_LOADED_INDEX: dict[tuple[str, int], MatchIndex] = {}


def _match_index(prepared: PreparedLibrary) -> MatchIndex:
    key = (prepared.key, prepared.candidates)
    if key not in _LOADED_INDEX:
        _LOADED_INDEX.clear()
        _LOADED_INDEX[key] = prepared.index()
    return _LOADED_INDEX[key]


def make_claim_matcher(library_ref: Any, top: int, min_score: float) -> MapInArrow:
    """mapInArrow: the run's claims (CLAIM_TEXT_ARROW) -> their `top` best library matches
    scoring at least `min_score` (MATCH_ARROW), best first, ranked from 1. `library_ref`: a pipeline.match_library
    PreparedLibrary (the built index as bytes), or its broadcast. No I/O. A library entry
    that is the desk's own verdict on a claim is never that claim's match: one more
    candidate is asked for where such entries exist, and the claim's own is dropped."""
    from pipeline.nlp.matching import parse_date

    def match(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        prepared: PreparedLibrary = getattr(library_ref, "value", library_ref)
        index = _match_index(prepared)
        own = prepared.own
        for batch in batches:
            keys = batch.column("claim_key").to_pylist()
            dates = [parse_date(value) for value in batch.column("claim_date").to_pylist()]
            texts = [sentence or "" for sentence in batch.column("sentence").to_pylist()]
            results = index.match(texts, top + 1 if own else top, dates, min_score)
            rows: list[tuple[str, int, float, int]] = []
            for key, matches in zip(keys, results, strict=True):
                kept = [(entry, score) for entry, score in matches if own.get(entry) != key][:top]
                rows.extend((key, int(entry), score, rank) for rank, (entry, score) in enumerate(kept, start=1))
            columns: list[list[Any]] = [[row[column] for row in rows] for column in range(len(MATCH_ARROW))]
            yield pa.RecordBatch.from_arrays([pa.array(values, field.type) for field, values in zip(MATCH_ARROW, columns, strict=True)], schema=MATCH_ARROW)

    return match
