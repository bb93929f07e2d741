"""claim_priority_parts returns the standing priority as a number beside its parts (issue 34: the
serial tail). The merge and refresh_clusters choose each cluster's lead by every appearance's
own priority: they built every appearance's parts as jsonb only to read the sum back out of
it. Its result type changes, so the function is dropped and created anew from its file
(sql_functions.RESULT_CHANGED).

Backward it is left as it is: the code before this migration names only `parts`, which the
function still returns.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def forward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from factcheck.claims import sql_functions

    sql_functions.apply(schema_editor, ["claim_priority_parts"])  # dropped first: sql_functions.RESULT_CHANGED


class Migration(migrations.Migration):
    dependencies = [("claims", "0038_queue_rank_from_the_merge")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
