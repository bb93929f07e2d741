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
)

# claim_types: comma-separated, quantities: JSON text; both as claim_staging stores them.
# tokens/bands: what clustering compares (pipeline.nlp.clustering).
CLAIM_SCHEMA = StructType(
    [
        StructField("claim_key", StringType(), True),
        StructField("article_id", LongType(), True),
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
        StructField("tokens", ArrayType(StringType(), True), True),
        StructField("bands", ArrayType(LongType(), True), True),
    ]
)

# A stored claim as clustering sees it.
STORED_NODE_SCHEMA = StructType(
    [
        StructField("claim_key", StringType(), True),
        StructField("tokens", ArrayType(StringType(), True), True),
        StructField("bands", ArrayType(LongType(), True), True),
        StructField("cluster_key", StringType(), True),
    ]
)

# What the extraction hands to clustering: a claim's key, tokens and MinHash band keys.
CLUSTER_NODE_SCHEMA = StructType(
    [
        StructField("claim_key", StringType(), True),
        StructField("tokens", ArrayType(StringType(), True), True),
        StructField("bands", ArrayType(LongType(), True), True),
    ]
)
