"""The shared SQL functions from their one home, factcheck/claims/sql_functions/*.sql.

Migrations 0011-0027 defined and redefined them inline; this applies the current definitions
from the files (the same functions, so nothing stored changes), and later changes to a
function edit its file and re-apply it in a new migration.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def apply_functions(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from factcheck.claims import sql_functions

    # Named: later migrations add functions to the files (0031's read a table made there).
    sql_functions.apply(schema_editor, THEN_DEFINED)


THEN_DEFINED = (
    "claim_priority_parts", "claim_recency_points", "claim_queue_ranking", "claim_seen_day",
    "claim_text_has_words", "claim_word_pairs", "claim_query_pairs",
)


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0028_triage_labels'),
    ]

    operations = [
        # Backward: the functions stay, as migration 0028 left them (the same definitions).
        migrations.RunPython(apply_functions, migrations.RunPython.noop),
    ]
