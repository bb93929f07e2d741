"""Explicit schemas for every DataFrame the job passes between stages.

Fields that Python (pandas UDFs) produces are nullable: Spark checks them against Arrow's
always-nullable schema.
"""

from pyspark.sql.types import (
    ArrayType,
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
        StructField("article_id", LongType(), True),
        StructField("content_hash", StringType(), True),
        StructField("text", StringType(), True),
        StructField("outlet", StringType(), True),
        StructField("author", StringType(), True),
        StructField("published_at", TimestampType(), True),
    ]
)

SENTENCE_SCHEMA = StructType(
    [
        StructField("article_id", LongType(), True),
        StructField("content_hash", StringType(), True),
        StructField("sentence_index", IntegerType(), True),
        StructField("paragraph", IntegerType(), True),
        StructField("start_offset", IntegerType(), True),
        StructField("end_offset", IntegerType(), True),
        StructField("sentence", StringType(), True),
        StructField("speaker", StringType(), True),
        StructField("speaker_title", StringType(), True),
        StructField("attribution", StringType(), True),
    ]
)

# claim_types: comma-separated, quantities: JSON text; both as stored in claim_staging.
SCORED_CLAIM_SCHEMA = StructType(
    [
        StructField("article_id", LongType(), True),
        StructField("content_hash", StringType(), True),
        StructField("start_offset", IntegerType(), True),
        StructField("end_offset", IntegerType(), True),
        StructField("sentence", StringType(), True),
        StructField("speaker", StringType(), True),
        StructField("speaker_title", StringType(), True),
        StructField("attribution", StringType(), True),
        StructField("score", DoubleType(), True),
        StructField("claim_type", StringType(), True),
        StructField("claim_types", StringType(), True),
        StructField("quantities", StringType(), True),
    ]
)

EXISTING_CLAIM_SCHEMA = StructType(
    [
        StructField("claim_key", StringType(), True),
        StructField("sentence", StringType(), True),
        StructField("quantities", StringType(), True),
        StructField("cluster_key", StringType(), True),
    ]
)

TOKENS_TYPE = ArrayType(StringType(), True)
BUCKET_SCHEMA = StructType([StructField("bucket", LongType(), False)])
COUNT_SCHEMA = StructType([StructField("rows", LongType(), True)])
