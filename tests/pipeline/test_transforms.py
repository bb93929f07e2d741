"""Transform tests on inline DataFrames with explicit schemas, compared whole."""

from __future__ import annotations

import hashlib

import pytest
from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from pipeline.schemas import SENTENCE_SCHEMA
from pipeline.transforms import explode_sentences, filter_candidates, with_claim_key, with_rule_scores

ARTICLE_DDL = "article_id long, content_hash string, text string, outlet string, author string, published_at timestamp"


def test_explode_sentences_keeps_exact_offsets(spark) -> None:  # type: ignore[no-untyped-def]
    text = "  ICE detained nearly 1,500 people.  It rained.\n\nWu said no."
    articles_df = spark.createDataFrame([(7, "h7", text, None, "", None), (8, "h8", "", "X", None, None)], ARTICLE_DDL)
    expected = spark.createDataFrame(
        [
            (7, "h7", 0, 0, 2, 35, "ICE detained nearly 1,500 people."),
            (7, "h7", 1, 0, 37, 47, "It rained."),
            (7, "h7", 2, 1, 49, 60, "Wu said no."),
        ],
        SENTENCE_SCHEMA,
    )
    result = explode_sentences(articles_df)
    assertDataFrameEqual(result, expected)
    for row in result.collect():
        assert text[row.start_offset : row.end_offset] == row.sentence


def test_filter_candidates_keeps_scores_at_or_above_threshold(spark) -> None:  # type: ignore[no-untyped-def]
    scored_df = spark.createDataFrame(
        [("a", 0.29), ("b", 0.3), ("c", None), ("d", 0.95)], "sentence string, score double"
    )
    assertDataFrameEqual(filter_candidates(scored_df), spark.createDataFrame([("b", 0.3), ("d", 0.95)], "sentence string, score double"))


def test_claim_key_is_sha1_of_hash_and_span(spark) -> None:  # type: ignore[no-untyped-def]
    claims_df = spark.createDataFrame([("abc", 3, 17)], "content_hash string, start_offset int, end_offset int")
    expected_key = hashlib.sha1(b"abc:3:17").hexdigest()
    assertDataFrameEqual(with_claim_key(claims_df), [Row(content_hash="abc", start_offset=3, end_offset=17, claim_key=expected_key)])


@pytest.mark.parametrize(
    "sentence,kept",
    [
        ("An increased presence could follow the operation in which it detained nearly 1,500 people.", True),
        ("Sanctuary does not mean safer streets.", True),
        ("Thank you all.", False),
    ],
)
def test_rule_scores_through_the_pandas_udf(spark, sentence: str, kept: bool) -> None:  # type: ignore[no-untyped-def]
    sentences_df = spark.createDataFrame([(sentence,)], "sentence string")
    result = filter_candidates(with_rule_scores(sentences_df)).collect()
    assert (len(result) == 1) is kept
