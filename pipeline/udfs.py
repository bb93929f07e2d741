"""Every piece of Python that runs per row inside Spark, Arrow-batched.

Kept in one module so the hot paths are easy to find, test and measure. Each function
here is a thin adapter from pandas batches to the plain-Python code in pipeline.extract.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd

from pipeline import db
from pipeline.extract import article_sentences, quantities_json, select_claims
from pipeline.nlp.checkworthiness import Scorer, scorer_from_artifact
from pipeline.nlp.clustering import cluster_tokens

MapInPandas = Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]

SENTENCE_COLUMNS = [
    "article_id", "content_hash", "sentence_index", "paragraph", "start_offset", "end_offset", "sentence",
    "speaker", "speaker_title", "attribution",
]
CLAIM_COLUMNS = [
    "article_id", "content_hash", "start_offset", "end_offset", "sentence", "speaker", "speaker_title", "attribution",
    "score", "claim_type", "claim_types", "quantities",
]


def make_sentence_splitter(counter: Any = None) -> MapInPandas:
    """mapInPandas: articles -> one row per sentence, exact offsets, attributed.

    `counter` (a Spark accumulator) counts sentences for the run's statistics; a retried
    task may count its sentences twice, which only affects that figure.
    """

    def split(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for frame in sentences_from_articles(batches):
            if counter is not None:
                counter.add(len(frame))
            yield frame

    return split


def sentences_from_articles(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    for batch in batches:
        rows: list[tuple[object, ...]] = []
        columns = zip(batch["article_id"], batch["content_hash"], batch["text"], batch["outlet"], batch["author"], strict=True)
        for article_id, content_hash, text, outlet, author in columns:
            for record in article_sentences(text or "", outlet=outlet or "", author=author or ""):
                rows.append((
                    article_id, content_hash, record.index, record.paragraph, record.start, record.end, record.text,
                    record.speaker, record.speaker_title, record.attribution,
                ))
        yield pd.DataFrame.from_records(rows, columns=SENTENCE_COLUMNS)


def make_claim_scorer(model_ref: Any) -> MapInPandas:
    """mapInPandas: sentences -> check-worthy claims, scored in one vectorised call per batch.

    `model_ref` is a Spark broadcast of the model Artifact (or an Artifact or Scorer).
    """

    def score(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        model = getattr(model_ref, "value", model_ref)
        scorer: Scorer = model if isinstance(model, Scorer) else scorer_from_artifact(model)
        for batch in batches:
            chosen = select_claims(batch["sentence"].tolist(), batch["attribution"].tolist(), batch["speaker_title"].tolist(), scorer)
            kept = batch.iloc[[c.index for c in chosen]].copy()
            kept["score"] = [c.score for c in chosen]
            kept["claim_type"] = [c.claim_type for c in chosen]
            kept["claim_types"] = [",".join(c.claim_types) for c in chosen]
            kept["quantities"] = [quantities_json(c.quantities) for c in chosen]
            yield kept[CLAIM_COLUMNS]

    return score


def tokens_for_clustering(sentences: pd.Series, quantities: pd.Series) -> pd.Series:
    """pandas_udf body: the token set that decides which claims are the same claim."""
    import json

    return pd.Series([cluster_tokens(s, json.loads(q) if q else []) for s, q in zip(sentences, quantities, strict=True)])


def make_article_reader(dsn: str, run_id: int, buckets: int) -> MapInPandas:
    """mapInPandas over bucket numbers: each task streams its bucket of the run's articles."""

    def read(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            for bucket in batch["bucket"]:
                yield from chunked_frames(db.read_run_articles(dsn, run_id=run_id, buckets=buckets, bucket=int(bucket)), db.ARTICLE_COLUMNS)

    return read


def make_existing_claims_reader(dsn: str, buckets: int) -> MapInPandas:
    """mapInPandas over bucket numbers: the claims already stored, for clustering against."""

    def read(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            for bucket in batch["bucket"]:
                yield from chunked_frames(db.read_existing_claims(dsn, buckets=buckets, bucket=int(bucket)), db.EXISTING_CLAIM_COLUMNS)

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


def make_staging_writer(dsn: str, run_id: int) -> MapInPandas:
    """mapInPandas: COPY each partition's claims into claim_staging, yield the row count."""

    def write(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        def rows() -> Iterator[tuple[object, ...]]:
            for batch in batches:
                for r in batch.itertuples(index=False):
                    yield (
                        run_id, r.claim_key, int(r.article_id), r.sentence, int(r.start_offset), int(r.end_offset),
                        float(r.score), r.claim_type, r.speaker or "", r.claim_types, r.quantities, r.speaker_title or "",
                        r.attribution or "", r.cluster_key,
                    )

        yield pd.DataFrame({"rows": [db.copy_to_staging(dsn, rows())]})

    return write
