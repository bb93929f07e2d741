"""Pure DataFrame -> DataFrame transforms of the claim-extraction job."""

from __future__ import annotations

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf

from pipeline import udfs
from pipeline.nlp.candidates import THRESHOLD
from pipeline.schemas import RULE_SCORE_SCHEMA, SENTENCE_SCHEMA


@pandas_udf(RULE_SCORE_SCHEMA)  # type: ignore[call-overload]
def rule_score_udf(sentences: pd.Series) -> pd.DataFrame:
    return udfs.rule_scores(sentences)


def explode_sentences(articles_df: DataFrame) -> DataFrame:
    return articles_df.select("article_id", "content_hash", "text").mapInPandas(udfs.sentences_from_articles, SENTENCE_SCHEMA)


def with_rule_scores(sentences_df: DataFrame) -> DataFrame:
    scored = rule_score_udf(F.col("sentence"))
    return (
        sentences_df.withColumn("_rule", scored)
        .withColumn("score", F.col("_rule.score"))
        .withColumn("claim_type", F.col("_rule.claim_type"))
        .drop("_rule")
    )


def filter_candidates(scored_df: DataFrame) -> DataFrame:
    is_check_worthy = F.col("score") >= F.lit(THRESHOLD)
    return scored_df.filter(is_check_worthy)


def with_claim_key(claims_df: DataFrame) -> DataFrame:
    """sha1(content hash : start : end): the same span of the same text is the same claim."""
    key_source = F.concat_ws(":", F.col("content_hash"), F.col("start_offset").cast("string"), F.col("end_offset").cast("string"))
    return claims_df.withColumn("claim_key", F.sha1(key_source))


def with_speaker(claims_df: DataFrame) -> DataFrame:
    return claims_df.withColumn("speaker", F.lit(""))


def to_staging_rows(claims_df: DataFrame) -> DataFrame:
    return claims_df.select(
        "claim_key", "article_id", "sentence", "start_offset", "end_offset", "score", "claim_type", "speaker"
    )


def claims_from_sentences(sentences_df: DataFrame) -> DataFrame:
    """Sentences in, staging-shaped candidate claims out."""
    return (
        sentences_df.transform(with_rule_scores)
        .transform(filter_candidates)
        .transform(with_claim_key)
        .transform(with_speaker)
        .transform(to_staging_rows)
    )
