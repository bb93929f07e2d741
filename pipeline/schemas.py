"""Explicit schemas for every DataFrame the job passes between stages.

Fields that Python (pandas UDFs) produces are nullable: Spark checks them against Arrow's
always-nullable schema.
"""

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

# claim_types: comma-separated, quantities and rank_signals: JSON text; as claim_staging stores them.
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
        StructField("rank_signals", StringType(), True),
        StructField("context", StringType(), True),
        StructField("tokens", ArrayType(StringType(), True), True),
        StructField("bands", ArrayType(LongType(), True), True),
    ]
)

# A claim's membership in one MinHash band bucket (pipeline.nlp.clustering): what the band
# shuffle moves, numbers only. in_run: the claim comes from this run (else it is stored).
MEMBERSHIP_SCHEMA = StructType(
    [
        StructField("node", LongType(), True),
        StructField("band", LongType(), True),
        StructField("in_run", BooleanType(), True),
    ]
)

# A candidate pair of nodes out of the band buckets (centre, member).
CANDIDATE_SCHEMA = StructType([StructField("src", LongType(), True), StructField("dst", LongType(), True)])
