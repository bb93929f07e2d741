"""Explicit schemas for every DataFrame the job passes between stages. The extracted
claims' Spark schema and its Arrow twin come from pipeline.staging.CLAIM_COLUMNS, the one
definition of a claim's columns (claim_staging's too).

Fields that Python (Arrow UDFs) produces are nullable: Spark checks them against Arrow's
always-nullable schema.
"""

from __future__ import annotations

import pyarrow as pa
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from pipeline.staging import CLAIM_COLUMNS

# Spark's types by their DDL names, for the columns pipeline.staging defines.
SPARK_TYPES: dict[str, DataType] = {
    "string": StringType(),
    "bigint": LongType(),
    "int": IntegerType(),
    "double": DoubleType(),
    "array<string>": ArrayType(StringType(), True),
    "array<bigint>": ArrayType(LongType(), True),
}

CLAIM_SCHEMA = StructType([StructField(column.name, SPARK_TYPES[column.spark_type], True) for column in CLAIM_COLUMNS])
CLAIM_ARROW: pa.Schema = to_arrow_schema(CLAIM_SCHEMA)

# An article as the extraction reads it (pipeline/sql/read_run_articles.sql).
ARTICLE_SCHEMA = StructType(
    [
        StructField("article_id", LongType(), True),
        StructField("content_hash", StringType(), True),
        StructField("text", StringType(), True),
        StructField("outlet", StringType(), True),
        StructField("author", StringType(), True),
    ]
)
ARTICLE_ARROW: pa.Schema = to_arrow_schema(ARTICLE_SCHEMA)

# A claim's membership in one MinHash band bucket (pipeline.nlp.clustering): what the band
# shuffle moves, numbers only. in_run: the claim comes from this run (else it is stored).
MEMBERSHIP_SCHEMA = StructType(
    [
        StructField("node", LongType(), True),
        StructField("band", LongType(), True),
        StructField("in_run", BooleanType(), True),
    ]
)
MEMBERSHIP_ARROW: pa.Schema = to_arrow_schema(MEMBERSHIP_SCHEMA)

# A candidate pair of nodes out of the band buckets (centre, member).
CANDIDATE_SCHEMA = StructType([StructField("src", LongType(), True), StructField("dst", LongType(), True)])
CANDIDATE_ARROW: pa.Schema = to_arrow_schema(CANDIDATE_SCHEMA)

# A claim of the run as the matching reads it: one row per claim key, with the date of the
# earliest article that made it (ISO, null when unknown).
CLAIM_TEXT_SCHEMA = StructType(
    [
        StructField("claim_key", StringType(), True),
        StructField("sentence", StringType(), True),
        StructField("claim_date", StringType(), True),
    ]
)
CLAIM_TEXT_ARROW: pa.Schema = to_arrow_schema(CLAIM_TEXT_SCHEMA)

# An article's publication date (ISO), for the matching's date features.
ARTICLE_DATE_SCHEMA = StructType([StructField("article_id", LongType(), True), StructField("article_date", StringType(), True)])

# A suggested match of a run's claim to a library fact-check (rank 1 = the claim's best).
MATCH_SCHEMA = StructType(
    [
        StructField("claim_key", StringType(), True),
        StructField("factcheck_id", LongType(), True),
        StructField("score", DoubleType(), True),
        StructField("rank", IntegerType(), True),
    ]
)
MATCH_ARROW: pa.Schema = to_arrow_schema(MATCH_SCHEMA)
