"""Drops the SQL functions nothing calls since the queue reads a stored order (migration 0031):
the read-time recency (claim_recency_points), the queue's per-statement weights
(claim_queue_ranking) and the search's word test (claim_text_has_words). Backward recreates
them as migration 0029 defined them."""

from importlib import import_module

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

DROP = """
DROP FUNCTION IF EXISTS claim_recency_points(timestamptz, timestamptz, double precision, double precision);
DROP FUNCTION IF EXISTS claim_queue_ranking();
DROP FUNCTION IF EXISTS claim_text_has_words(tsquery);
"""


def forward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    schema_editor.execute(DROP)


def backward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from factcheck.claims import sql_functions

    defined_in_0029 = import_module("factcheck.claims.migrations.0029_sql_functions_from_files")
    for definition in defined_in_0029.RETIRED.values():
        schema_editor.execute(definition.replace(sql_functions.DEFAULT_WEIGHTS_SLOT, sql_functions.default_weights_literal()))


class Migration(migrations.Migration):
    dependencies = [("claims", "0032_every_claim_in_a_cluster")]

    operations = [migrations.RunPython(forward, backward)]
