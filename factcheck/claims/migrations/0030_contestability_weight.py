"""The contestability part weighs 160 points, not 80 (issue 29, item 1; docs/model.md).

Chosen out of fold on the graded BBC claims: with the ranking model's probability counting
twice what it did, the queue's top 30 holds two more claims a desk would take. Stored weights
still at the old default take the new one, as a new version, and every lead and priority is
computed again; weights an admin changed are left as they are.
"""

from importlib import import_module

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS

OLD_DEFAULT = 80.0
_0027 = import_module("factcheck.claims.migrations.0027_cluster_lead_contestability")


def _set_weight(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor, old: float, new: float) -> None:
    from pipeline.sql import statement

    # The function's own defaults (used when no weights are stored) follow the code's. 0027's
    # definition replaces whatever 0029 applied from the function's file, whose result type
    # has changed since (0039: CREATE OR REPLACE cannot change it).
    schema_editor.execute("DROP FUNCTION IF EXISTS claim_priority_parts(double precision, text, jsonb, bigint)")
    schema_editor.execute(_0027.PARTS.replace("%(defaults)s", _0027._defaults()))
    RankingWeights = apps.get_model("claims", "RankingWeights")
    stored = RankingWeights.objects.filter(pk=1).first()
    if stored is None or stored.weights.get("contestability") != old:
        return
    stored.weights = {**stored.weights, "contestability": new}
    stored.version += 1
    stored.save(update_fields=["weights", "version"])
    schema_editor.execute(_0027.LEADS)
    schema_editor.execute(statement("refresh_all_priorities"))


def forward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    _set_weight(apps, schema_editor, OLD_DEFAULT, DEFAULT_RANKING_WEIGHTS["contestability"])


def backward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    _set_weight(apps, schema_editor, DEFAULT_RANKING_WEIGHTS["contestability"], OLD_DEFAULT)


class Migration(migrations.Migration):
    dependencies = [("claims", "0029_sql_functions_from_files")]
    operations = [migrations.RunPython(forward, backward)]
