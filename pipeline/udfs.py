"""Every piece of Python that runs per row inside Spark, Arrow-batched.

Kept in one module so the hot paths are easy to find, test and measure. Each function
here is a thin adapter from pandas batches to the plain-Python code in pipeline.extract.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any, NamedTuple

import pandas as pd

from pipeline import db
from pipeline.extract import ArticleText, extract_articles, quantities_json
from pipeline.nlp.checkworthiness import Scorer, scorer_from_artifact
from pipeline.nlp.clustering import signatures

MapInPandas = Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]

CLUSTER_NODE_COLUMNS = ("claim_key", "tokens", "bands")
STORED_NODE_COLUMNS = ("claim_key", "tokens", "bands", "cluster_key")
STAGED_COLUMNS = db.STAGING_COLUMNS + db.SIGNATURE_COLUMNS


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
    tokens: list[str]
    bands: list[int]


CLAIM_COLUMNS = list(ClaimRow._fields)


def claim_rows(batch: pd.DataFrame, scorer: Scorer) -> tuple[int, list[ClaimRow]]:
    """(sentences, claims) for one Arrow batch of articles.

    Splitting, attribution, scoring, typing, quantities and cluster keys all happen here
    (pipeline.extract and pipeline.nlp, the code the command line runs). Sentences of the
    whole batch are scored in one call.
    """
    articles = [
        ArticleText(text or "", content_hash, outlet or "", author or "")
        for text, content_hash, outlet, author in zip(batch["text"], batch["content_hash"], batch["outlet"], batch["author"], strict=True)
    ]
    counts, claims = extract_articles(articles, scorer)
    article_ids = batch["article_id"].tolist()
    claim_signatures = signatures((claim.sentence, claim.quantities) for _, claim in claims)
    rows = [
        ClaimRow(
            claim.claim_key, int(article_ids[article]), claim.start, claim.end, claim.sentence, claim.speaker,
            claim.speaker_title, claim.attribution, claim.score, claim.claim_type, ",".join(claim.claim_types),
            quantities_json(claim.quantities), claim_tokens, bands,
        )
        for (article, claim), (claim_tokens, bands) in zip(claims, claim_signatures, strict=True)
    ]
    return sum(counts), rows


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
        scorer = _scorer(model_ref)
        for batch in batches:
            sentences, rows = claim_rows(batch, scorer)
            if sentence_counter is not None:
                sentence_counter.add(sentences)
            yield pd.DataFrame.from_records(rows, columns=CLAIM_COLUMNS)

    return extract


def make_claim_stager(model_ref: Any, dsn: str, run_id: int, *, sentence_counter: Any = None, claim_counter: Any = None) -> MapInPandas:
    """mapInPandas: articles -> claims COPYed into the run's staging rows, and out to Spark
    only what clustering needs: (claim_key, tokens, bands) of the claims that can cluster.

    Each task stages its claims in one transaction: a failed attempt leaves nothing, and a
    retried one that had committed only stages duplicates, which the merge collapses (it
    keeps one row per claim key). The staged cluster key is empty; the merge fills it from
    the clustering's assignments (pipeline.db). Claim rows never cross into the JVM and
    back: that round trip (cached, joined, sent out again to be written) cost more than
    running the extraction on every core saved.
    """

    def stage(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        scorer = _scorer(model_ref)
        with db.connect(dsn) as conn:
            for batch in batches:
                sentences, rows = claim_rows(batch, scorer)
                db.stage_claims(conn, (
                    (run_id, r.claim_key, r.article_id, r.sentence, r.start_offset, r.end_offset, r.score, r.claim_type, r.speaker,
                     r.claim_types, r.quantities, r.speaker_title, r.attribution, "", r.tokens, r.bands)
                    for r in rows
                ), columns=STAGED_COLUMNS)
                if sentence_counter is not None:
                    sentence_counter.add(sentences)
                if claim_counter is not None:
                    claim_counter.add(len(rows))
                nodes = [(r.claim_key, r.tokens, r.bands) for r in rows if r.bands]
                yield pd.DataFrame.from_records(nodes, columns=list(CLUSTER_NODE_COLUMNS))

    return stage


def stored_nodes(rows: list[tuple[Any, ...]]) -> pd.DataFrame:
    """STORED_NODE_COLUMNS for rows of db.READ_STORED_NODES (claim_key, cluster_key, tokens,
    bands, sentence, quantities): the stored signature, or, for a claim that has none
    (tokens null), one computed from its sentence and quantities."""
    missing = [(sentence, json.loads(quantities or "[]")) for _, _, tokens, _, sentence, quantities in rows if tokens is None]
    computed = iter(signatures(missing))
    return pd.DataFrame.from_records(
        [
            (key, *((tokens, bands) if tokens is not None else next(computed)), cluster_key)
            for key, cluster_key, tokens, bands, _, _ in rows
        ],
        columns=list(STORED_NODE_COLUMNS),
    )


def make_article_reader(dsn: str, run_id: int, buckets: int) -> MapInPandas:
    """mapInPandas over bucket numbers: each task streams its bucket of the run's articles."""

    def read(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            for bucket in batch["bucket"]:
                yield from chunked_frames(db.read_run_articles(dsn, run_id=run_id, buckets=buckets, bucket=int(bucket)), db.ARTICLE_COLUMNS)

    return read


def make_stored_nodes_reader(dsn: str, buckets: int, size: int = 2000) -> MapInPandas:
    """mapInPandas over bucket numbers: the claims already stored, as clustering nodes."""

    def read(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            for bucket in batch["bucket"]:
                rows = db.read_stored_nodes(dsn, buckets=buckets, bucket=int(bucket))
                while chunk := list(islice(rows, size)):
                    yield stored_nodes(chunk)

    return read


def chunked_frames(rows: Iterator[tuple[Any, ...]], columns: tuple[str, ...], size: int = 2000) -> Iterator[pd.DataFrame]:
    chunk: list[tuple[Any, ...]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield pd.DataFrame.from_records(chunk, columns=list(columns))
            chunk = []
    if chunk:
        yield pd.DataFrame.from_records(chunk, columns=list(columns))
