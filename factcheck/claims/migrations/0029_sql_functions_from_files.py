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

    sql_functions.apply(schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0028_triage_labels'),
    ]

    operations = [
        # Backward: the functions stay, as migration 0028 left them (the same definitions).
        migrations.RunPython(apply_functions, migrations.RunPython.noop),
    ]
