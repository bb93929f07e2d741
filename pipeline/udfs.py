"""Every piece of Python that runs per row inside Spark, Arrow-batched.

Kept in one module so the hot paths are easy to find, test and measure. Each function
here is a thin adapter from pandas batches to the plain-Python code in pipeline.extract.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd

from pipeline import db
from pipeline.extract import ArticleText, extract_articles, quantities_json
from pipeline.nlp.checkworthiness import Scorer, scorer_from_artifact
from pipeline.nlp.clustering import band_keys_batch, cluster_tokens

MapInPandas = Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]

CLAIM_COLUMNS = [
    "claim_key", "article_id", "start_offset", "end_offset", "sentence", "speaker", "speaker_title", "attribution",
    "score", "claim_type", "claim_types", "quantities", "tokens", "bands",
]


def make_claim_extractor(model_ref: Any, sentence_counter: Any = None) -> MapInPandas:
    """mapInPandas: articles -> claims, in one Python pass per Arrow batch.

    Splitting, attribution, scoring, typing, quantities and cluster keys all happen here
    (pipeline.extract and pipeline.nlp, the code the command line runs), so rows cross
    the JVM/Python boundary once. Sentences of a whole batch are scored in one call.
    `model_ref` is a Spark broadcast of the model Artifact (or an Artifact or a Scorer);
    `sentence_counter` an accumulator for the run's sentence count (a retried task may
    count twice; only that statistic is affected).
    """

    def extract(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        model = getattr(model_ref, "value", model_ref)
        scorer: Scorer = model if isinstance(model, Scorer) else scorer_from_artifact(model)
        for batch in batches:
            articles = [
                ArticleText(text or "", content_hash, outlet or "", author or "")
                for text, content_hash, outlet, author in zip(batch["text"], batch["content_hash"], batch["outlet"], batch["author"], strict=True)
            ]
            counts, claims = extract_articles(articles, scorer)
            if sentence_counter is not None:
                sentence_counter.add(sum(counts))
            article_ids = batch["article_id"].tolist()
            tokens = [cluster_tokens(claim.sentence, claim.quantities) for _, claim in claims]
            rows = [
                (
                    claim.claim_key, int(article_ids[article]), claim.start, claim.end, claim.sentence, claim.speaker,
                    claim.speaker_title, claim.attribution, claim.score, claim.claim_type, ",".join(claim.claim_types),
                    quantities_json(claim.quantities), claim_tokens, bands,
                )
                for (article, claim), claim_tokens, bands in zip(claims, tokens, band_keys_batch(tokens), strict=True)
            ]
            yield pd.DataFrame.from_records(rows, columns=CLAIM_COLUMNS)

    return extract


def cluster_keys(sentences: pd.Series, quantities: pd.Series) -> pd.DataFrame:
    """pandas_udf body: each stored claim's token set and MinHash band keys."""
    tokens = [cluster_tokens(s, json.loads(q) if q else []) for s, q in zip(sentences, quantities, strict=True)]
    return pd.DataFrame({"tokens": tokens, "bands": band_keys_batch(tokens)})


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
