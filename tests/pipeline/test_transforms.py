"""Transform tests on inline DataFrames with explicit schemas, compared whole."""

from __future__ import annotations

import hashlib
import json

from pyspark.testing import assertDataFrameEqual

from pipeline.extract import claim_key, signals_json
from pipeline.nlp.checkworthiness import load_scorer, read_artifact
from pipeline.nlp.clustering import band_keys, cluster_tokens
from pipeline.nlp.contestability import ClaimView, load_model
from pipeline.nlp.ranking import rank_signals
from pipeline.nlp.stories import story_keys
from pipeline.schemas import CLAIM_SCHEMA
from pipeline.transforms import extract_claims

ARTICLE_DDL = "article_id long, content_hash string, text string, outlet string, author string, published_at timestamp"
TEXT = "  ICE detained nearly 1,500 people.  Thank you.\n\n“Sanctuary does not mean safer streets,” Acting ICE Director Todd Lyons said."


def expected_row(start: int, end: int, speaker: str, title: str, attribution: str, claim_type: str, types: str, quantities: list) -> tuple:  # type: ignore[type-arg]
    sentence = TEXT[start:end]
    tokens = cluster_tokens(sentence, quantities)
    score = round(float(load_scorer().score([sentence])[0]), 6)
    signals: dict[str, float | str | list[str]] = {
        **rank_signals(
            sentence=sentence, claim_type=claim_type, claim_types=types.split(","), quantities=quantities, speaker=speaker,
            speaker_title=title, attribution=attribution,
        )
    }
    view = ClaimView(sentence, score, claim_type, tuple(types.split(",")), attribution, signals)
    signals["contestability"] = round(load_model().probability(view), 4)
    if story := story_keys(sentence=sentence, quantities=quantities, speaker=speaker, attribution=attribution):
        signals["story"] = story
    return (
        claim_key("h7", start, end), 7, start, end, sentence, speaker, title, attribution, score, claim_type, types,
        json.dumps(quantities, ensure_ascii=False, sort_keys=True), signals_json(signals), "", tokens, band_keys(tokens),
    )


def test_extract_claims_finds_keys_offsets_speakers_types_and_quantities(spark) -> None:  # type: ignore[no-untyped-def]
    # Untrimmed text, an empty article and a null outlet: the transform copes with all three.
    articles_df = spark.createDataFrame([(7, "h7", TEXT, "MassLive", "", None), (8, "h8", "", None, None, None)], ARTICLE_DDL)
    counter = spark.sparkContext.accumulator(0)
    quantity = {
        "end": 32, "hedge": "approximately", "hedge_text": "nearly", "high": None, "low": None, "magnitude": "", "noun": "people",
        "start": 13, "text": "nearly 1,500 people", "unit": "people", "value": 1500.0,
    }
    quote_end = TEXT.index("said.") + len("said.")
    expected = spark.createDataFrame(
        [
            expected_row(2, 35, "MassLive", "", "article", "numeric", "numeric,official_action", [quantity]),
            expected_row(49, quote_end, "Todd Lyons", "Acting ICE Director", "direct_quote", "comparison", "comparison,quote", []),
        ],
        CLAIM_SCHEMA,
    )
    result = extract_claims(articles_df, read_artifact(), counter)
    assertDataFrameEqual(result, expected)
    assert counter.value == 3  # "Thank you." is a sentence, not a claim
    for row in result.collect():
        assert TEXT[row.start_offset : row.end_offset] == row.sentence


def test_claim_key_is_sha1_of_hash_and_span() -> None:
    assert claim_key("abc", 3, 17) == hashlib.sha1(b"abc:3:17").hexdigest()
