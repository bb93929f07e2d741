"""Explicit schemas for every DataFrame the job passes between stages."""

from pyspark.sql.types import (
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

ARTICLE_SCHEMA = StructType(
    [
        StructField("article_id", LongType(), False),
        StructField("content_hash", StringType(), False),
        StructField("text", StringType(), False),
        StructField("outlet", StringType(), True),
        StructField("author", StringType(), True),
        StructField("published_at", TimestampType(), True),
    ]
)

SENTENCE_SCHEMA = StructType(
    [
        StructField("article_id", LongType(), False),
        StructField("content_hash", StringType(), False),
        StructField("sentence_index", IntegerType(), False),
        StructField("paragraph", IntegerType(), False),
        StructField("start_offset", IntegerType(), False),
        StructField("end_offset", IntegerType(), False),
        StructField("sentence", StringType(), False),
    ]
)

# Fields a pandas UDF returns must be nullable: Spark checks Arrow's (always nullable) schema.
RULE_SCORE_SCHEMA = StructType(
    [
        StructField("score", DoubleType(), True),
        StructField("claim_type", StringType(), True),
    ]
)

BUCKET_SCHEMA = StructType([StructField("bucket", LongType(), False)])
COUNT_SCHEMA = StructType([StructField("rows", LongType(), False)])
