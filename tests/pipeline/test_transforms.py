"""Transform tests on inline DataFrames with explicit schemas, compared whole."""

from __future__ import annotations

import hashlib

from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from pipeline.nlp.checkworthiness import load_scorer, read_artifact
from pipeline.schemas import SCORED_CLAIM_SCHEMA, SENTENCE_SCHEMA
from pipeline.transforms import explode_sentences, score_claims, with_claim_key

ARTICLE_DDL = "article_id long, content_hash string, text string, outlet string, author string, published_at timestamp"
TEXT = "  ICE detained nearly 1,500 people.  It rained.\n\n“We will flood the zone,” Acting ICE Director Todd Lyons said."


def test_explode_sentences_keeps_exact_offsets_and_speakers(spark) -> None:  # type: ignore[no-untyped-def]
    articles_df = spark.createDataFrame([(7, "h7", TEXT, "MassLive", "", None), (8, "h8", "", "X", None, None)], ARTICLE_DDL)
    expected = spark.createDataFrame(
        [
            (7, "h7", 0, 0, 2, 35, "ICE detained nearly 1,500 people.", "MassLive", "", "article"),
            (7, "h7", 1, 0, 37, 47, "It rained.", "MassLive", "", "article"),
            (7, "h7", 2, 1, 49, 111, "“We will flood the zone,” Acting ICE Director Todd Lyons said.", "Todd Lyons", "Acting ICE Director", "direct_quote"),
        ],
        SENTENCE_SCHEMA,
    )
    result = explode_sentences(articles_df)
    assertDataFrameEqual(result, expected)
    for row in result.collect():
        assert TEXT[row.start_offset : row.end_offset] == row.sentence


def test_score_claims_keeps_claims_with_types_and_quantities(spark) -> None:  # type: ignore[no-untyped-def]
    sentences_df = spark.createDataFrame(
        [
            (1, "h", 0, 0, 0, 33, "ICE detained nearly 1,500 people.", "", "", "article"),
            (1, "h", 1, 0, 34, 54, "Thank you very much.", "", "", "article"),
            (1, "h", 2, 0, 55, 93, "Sanctuary does not mean safer streets.", "Todd Lyons", "Acting ICE Director", "direct_quote"),
        ],
        SENTENCE_SCHEMA,
    )
    scorer = load_scorer()
    scores = scorer.score(["ICE detained nearly 1,500 people.", "Sanctuary does not mean safer streets."])
    quantity = '[{"end": 32, "hedge": "approximately-below", "start": 13, "text": "nearly 1,500 people", "unit": "people", "value": 1500.0}]'
    expected = spark.createDataFrame(
        [
            (1, "h", 0, 33, "ICE detained nearly 1,500 people.", "", "", "article", round(float(scores[0]), 6), "numeric", "numeric,official_action", quantity),
            (1, "h", 55, 93, "Sanctuary does not mean safer streets.", "Todd Lyons", "Acting ICE Director", "direct_quote",
             round(float(scores[1]), 6), "comparison", "comparison,quote", "[]"),
        ],
        SCORED_CLAIM_SCHEMA,
    )
    assertDataFrameEqual(score_claims(sentences_df, read_artifact()), expected)


def test_claim_key_is_sha1_of_hash_and_span(spark) -> None:  # type: ignore[no-untyped-def]
    claims_df = spark.createDataFrame([("abc", 3, 17)], "content_hash string, start_offset int, end_offset int")
    expected_key = hashlib.sha1(b"abc:3:17").hexdigest()
    assertDataFrameEqual(with_claim_key(claims_df), [Row(content_hash="abc", start_offset=3, end_offset=17, claim_key=expected_key)])
