"""Every piece of Python that runs per row inside Spark, Arrow-batched.

Kept in one module so the hot paths are easy to find, test and measure. Each function
here is a thin adapter from Arrow (or pandas) batches to the plain-Python code in
pipeline.extract and pipeline.nlp.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, islice
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyarrow as pa
from pyspark.accumulators import AccumulatorParam

from pipeline import db
from pipeline.extract import ArticleText, extract_articles, quantities_json, signals_json
from pipeline.nlp.checkworthiness import Scorer, scorer_from_artifact
from pipeline.nlp.clustering import claim_node, signatures, star_pairs

if TYPE_CHECKING:
    import pandas as pd

# pandas is imported only where a pandas UDF needs it: the job's Python workers run Arrow
# UDFs, and importing pandas cost each of them about 0.4 s.
MapInPandas = Callable[[Iterator["pd.DataFrame"]], Iterator["pd.DataFrame"]]
MapInArrow = Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]

STAGED_COLUMNS = db.STAGING_COLUMNS + db.SIGNATURE_COLUMNS
# Articles per extraction chunk: scored together, staged in one COPY, and handed to Spark
# as one Arrow batch of band memberships (a few MB of Python objects at most).
ARTICLE_CHUNK = 250
# The Arrow twins of pipeline.schemas.MEMBERSHIP_SCHEMA and CANDIDATE_SCHEMA.
MEMBERSHIPS = pa.schema([("node", pa.int64()), ("band", pa.int64()), ("in_run", pa.bool_())])
CANDIDATES = pa.schema([("src", pa.int64()), ("dst", pa.int64())])
# An article as the extraction takes it: db.ARTICLE_COLUMNS, of which it reads the first five.
Article = tuple[Any, ...]


class ClaimRow(NamedTuple):
    """A claim as the job's DataFrames and the staging table take it (CLAIM_SCHEMA)."""

    claim_key: str
    article_id: int
    start_offset: int
    end_offset: int
    sentence: str
    speaker: str
    speaker_title: str
    attribution: str
    score: float
    claim_type: str
    claim_types: str  # comma-separated
    quantities: str  # JSON
    rank_signals: str  # JSON
    context: str
    tokens: list[str]
    bands: list[int]


CLAIM_COLUMNS = list(ClaimRow._fields)


def claim_rows(articles: Sequence[Article], scorer: Scorer) -> tuple[int, list[ClaimRow]]:
    """(sentences, claims) for a chunk of articles (article_id, content_hash, text, outlet, author, ...).

    Splitting, attribution, scoring, typing, quantities and signatures all happen here
    (pipeline.extract and pipeline.nlp, the code the command line runs). Sentences of the
    whole chunk are scored in one call.
    """
    texts = [ArticleText(text or "", content_hash, outlet or "", author or "") for _, content_hash, text, outlet, author, *_ in articles]
    counts, claims = extract_articles(texts, scorer)
    claim_signatures = signatures((claim.sentence, claim.quantities) for _, claim in claims)
    rows = [
        ClaimRow(
            claim.claim_key, int(articles[article][0]), claim.start, claim.end, claim.sentence, claim.speaker,
            claim.speaker_title, claim.attribution, claim.score, claim.claim_type, ",".join(claim.claim_types),
            quantities_json(claim.quantities), signals_json(claim.signals), claim.context, claim_tokens, bands,
        )
        for (article, claim), (claim_tokens, bands) in zip(claims, claim_signatures, strict=True)
    ]
    return sum(counts), rows


def memberships(nodes: Iterable[tuple[int, Sequence[int]]], *, in_run: bool) -> pa.RecordBatch:
    """MEMBERSHIPS rows, one per (node, band key) of (node, band keys) pairs."""
    nodes = list(nodes)
    counts = np.fromiter((len(bands) for _, bands in nodes), np.int64, len(nodes))
    total = int(counts.sum())
    return pa.RecordBatch.from_arrays(
        [
            pa.array(np.repeat(np.fromiter((node for node, _ in nodes), np.int64, len(nodes)), counts)),
            pa.array(np.fromiter(chain.from_iterable(bands for _, bands in nodes), np.int64, total)),
            pa.array(np.full(total, in_run)),
        ],
        schema=MEMBERSHIPS,
    )


def _scorer(model_ref: Any) -> Scorer:
    """`model_ref`: a Spark broadcast of the model Artifact, an Artifact or a Scorer."""
    model = getattr(model_ref, "value", model_ref)
    return model if isinstance(model, Scorer) else scorer_from_artifact(model)


def make_claim_extractor(model_ref: Any, sentence_counter: Any = None) -> MapInPandas:
    """mapInPandas: articles -> claims (CLAIM_COLUMNS), in one Python pass per Arrow batch.

    `sentence_counter` is an accumulator for the run's sentence count (a retried task may
    count twice; only that statistic is affected).
    """

    def extract(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        import pandas as pd
        scorer = _scorer(model_ref)
        for batch in batches:
            articles = list(zip(batch["article_id"], batch["content_hash"], batch["text"], batch["outlet"], batch["author"], strict=True))
            sentences, rows = claim_rows(articles, scorer)
            if sentence_counter is not None:
                sentence_counter.add(sentences)
            yield pd.DataFrame.from_records(rows, columns=CLAIM_COLUMNS)

    return extract


class BucketSet(AccumulatorParam):
    """An accumulator of bucket numbers (a set): which buckets' staging has committed."""

    def zero(self, value: set[int]) -> set[int]:
        return set()

    def addInPlace(self, value1: set[int], value2: set[int]) -> set[int]:  # noqa: N802 (PySpark's name)
        # A new set, never one changed in place: the merge thread reads the driver's value
        # while Spark's accumulator thread adds to it.
        return value1 | value2


def make_claim_stager(
    model_ref: Any, dsn: str, run_id: int, buckets: int, *,
    sentence_counter: Any = None, claim_counter: Any = None, staged_buckets: Any = None,
) -> MapInArrow:
    """mapInArrow over bucket numbers: each task streams its bucket of the run's articles
    from PostgreSQL, extracts their claims, COPYs them into the run's staging rows, and hands
    Spark only what the band shuffle needs: MEMBERSHIPS rows of the claims that can cluster.

    Each bucket is staged in one transaction: a failed attempt leaves nothing, and a retried
    one that had committed only stages duplicates, which the merge collapses (it keeps one
    row per claim key). Once a bucket is committed its number goes into `staged_buckets` (a
    set accumulator: the driver starts merging when every bucket is in). The staged cluster
    key is empty; the merge fills it from the clustering's assignments (pipeline.db). Claim
    rows never cross into the JVM and back.
    """

    def stage(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        scorer = _scorer(model_ref)
        for batch in batches:
            for bucket in batch.column("bucket").to_pylist():
                articles = db.read_run_articles(dsn, run_id=run_id, buckets=buckets, bucket=int(bucket))
                with db.connect(dsn) as conn:
                    while chunk := list(islice(articles, ARTICLE_CHUNK)):
                        sentences, rows = claim_rows(chunk, scorer)
                        db.stage_claims(conn, (
                            (run_id, r.claim_key, r.article_id, r.sentence, r.start_offset, r.end_offset, r.score, r.claim_type,
                             r.speaker, r.claim_types, r.quantities, r.speaker_title, r.attribution, "", r.rank_signals, r.context,
                             r.tokens, r.bands)
                            for r in rows
                        ), columns=STAGED_COLUMNS)
                        if sentence_counter is not None:
                            sentence_counter.add(sentences)
                        if claim_counter is not None:
                            claim_counter.add(len(rows))
                        yield memberships(((claim_node(r.claim_key), r.bands) for r in rows if r.bands), in_run=True)
                if staged_buckets is not None:
                    staged_buckets.add({int(bucket)})

    return stage


def stored_bands(rows: Iterable[tuple[Any, ...]]) -> list[tuple[int, list[int]]]:
    """(node, band keys) for rows of db.READ_STORED_BANDS (claim_key, bands, sentence,
    quantities): the stored band keys, or, for a claim that has no signature (bands null),
    band keys computed from its sentence and quantities."""
    rows = list(rows)
    missing = [(sentence, json.loads(quantities or "[]")) for _, bands, sentence, quantities in rows if bands is None]
    computed = iter(signatures(missing))
    return [(claim_node(key), bands if bands is not None else next(computed)[1]) for key, bands, _, _ in rows]


def make_stored_memberships_reader(dsn: str, buckets: int, size: int = 2000) -> MapInArrow:
    """mapInArrow over bucket numbers: the stored claims' band memberships."""

    def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for bucket in batch.column("bucket").to_pylist():
                rows = db.read_stored_bands(dsn, buckets=buckets, bucket=int(bucket))
                while chunk := list(islice(rows, size)):
                    yield memberships(stored_bands(chunk), in_run=False)

    return read


def find_stars(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow over one band partition of MEMBERSHIPS (every membership of a band is in
    the same partition): its candidate pairs (clustering.star_pairs)."""
    table = pa.Table.from_batches(list(batches), schema=MEMBERSHIPS)
    pairs = star_pairs(
        table.column("band").to_numpy(), table.column("node").to_numpy(), table.column("in_run").to_numpy(zero_copy_only=False)
    )
    yield pa.RecordBatch.from_arrays([pa.array(pairs[:, 0]), pa.array(pairs[:, 1])], schema=CANDIDATES)
