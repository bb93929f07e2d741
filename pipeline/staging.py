"""The one definition of a claim's columns, as extraction produces them and `claim_staging`
stores them: pipeline.schemas builds the Spark and Arrow schemas from CLAIM_COLUMNS, the sink
(pipeline.db.stage_claims) its COPY column list and binary types from STAGING_COLUMNS, and
tests/pipeline/test_schemas.py holds the table the migrations built to it. No pyspark here:
the web app imports the database side.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    """One column: its name, its PostgreSQL type as format_type() prints it (binary COPY
    sends values in that type's form), and its Spark type in DDL (pipeline.schemas)."""

    name: str
    sql_type: str
    spark_type: str

    @property
    def copy_type(self) -> str:
        """The type name psycopg's binary COPY takes: the SQL type without its modifier."""
        base, _, rest = self.sql_type.partition("(")
        return base + rest.partition(")")[2]


# A claim as extraction produces it. claim_types: comma-separated; quantities, rank_signals:
# JSON text; tokens/bands: what clustering compares (pipeline.nlp.clustering).
CLAIM_COLUMNS: tuple[Column, ...] = (
    Column("claim_key", "character varying(40)", "string"),
    Column("article_id", "bigint", "bigint"),
    Column("start_offset", "integer", "int"),
    Column("end_offset", "integer", "int"),
    Column("sentence", "text", "string"),
    Column("speaker", "character varying(300)", "string"),
    Column("speaker_title", "character varying(300)", "string"),
    Column("attribution", "character varying(20)", "string"),
    Column("score", "double precision", "double"),
    Column("claim_type", "character varying(20)", "string"),
    Column("claim_types", "text", "string"),
    Column("quantities", "jsonb", "string"),
    Column("rank_signals", "jsonb", "string"),
    Column("context", "text", "string"),
    Column("tokens", "text[]", "array<string>"),
    Column("bands", "bigint[]", "array<bigint>"),
)
CLAIM_COLUMN_NAMES: tuple[str, ...] = tuple(column.name for column in CLAIM_COLUMNS)

# claim_staging: a run's claims, keyed by the run.
STAGING_COLUMNS: tuple[Column, ...] = (Column("run_id", "bigint", "bigint"), *CLAIM_COLUMNS)
STAGING_TABLE = "claim_staging"
# What claim_staging computes itself as the COPY arrives (generated columns, claims migration
# 0037): the claim's search vector and phrase pairs, which the merge inserts into claims.
STAGING_GENERATED: tuple[str, ...] = ("search", "phrase_pairs")
