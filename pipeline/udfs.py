"""Every piece of Python that runs per row inside Spark, Arrow-batched.

Kept in one module so the hot paths are easy to find, test and measure.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

from pipeline import db
from pipeline.nlp.candidates import rule_score
from pipeline.nlp.segment import split_sentences

SENTENCE_COLUMNS = ["article_id", "content_hash", "sentence_index", "paragraph", "start_offset", "end_offset", "sentence"]


def sentences_from_articles(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """mapInPandas: articles -> one row per sentence with exact offsets into the text."""
    for batch in batches:
        rows: list[tuple[object, ...]] = []
        for article_id, content_hash, text in zip(batch["article_id"], batch["content_hash"], batch["text"], strict=True):
            for index, sentence in enumerate(split_sentences(text)):
                rows.append((article_id, content_hash, index, sentence.paragraph, sentence.start, sentence.end, text[sentence.start : sentence.end]))
        yield pd.DataFrame.from_records(rows, columns=SENTENCE_COLUMNS)


def rule_scores(sentences: pd.Series) -> pd.DataFrame:
    """pandas_udf body: the rule-based score and type of each sentence."""
    scored = [rule_score(sentence) for sentence in sentences]
    return pd.DataFrame({"score": [s.score for s in scored], "claim_type": [s.claim_type for s in scored]})


def make_article_reader(dsn: str, run_id: int, buckets: int):  # type: ignore[no-untyped-def]
    """mapInPandas over bucket numbers: each task streams its bucket of the run's articles."""

    def read(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            for bucket in batch["bucket"]:
                chunk: list[tuple[object, ...]] = []
                for row in db.read_run_articles(dsn, run_id=run_id, buckets=buckets, bucket=int(bucket)):
                    chunk.append(row)
                    if len(chunk) >= 500:
                        yield pd.DataFrame.from_records(chunk, columns=list(db.ARTICLE_COLUMNS))
                        chunk = []
                if chunk:
                    yield pd.DataFrame.from_records(chunk, columns=list(db.ARTICLE_COLUMNS))

    return read


def make_staging_writer(dsn: str, run_id: int):  # type: ignore[no-untyped-def]
    """mapInPandas: COPY each partition's claims into claim_staging, yield the row count."""

    def write(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        def rows() -> Iterator[tuple[object, ...]]:
            for batch in batches:
                for record in batch.itertuples(index=False):
                    yield (
                        run_id, record.claim_key, int(record.article_id), record.sentence,
                        int(record.start_offset), int(record.end_offset), float(record.score),
                        record.claim_type, record.speaker or "",
                    )

        yield pd.DataFrame({"rows": [db.copy_to_staging(dsn, rows())]})

    return write
