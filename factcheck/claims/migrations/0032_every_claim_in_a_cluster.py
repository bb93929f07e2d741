"""Every claim is in a cluster, one of one included (issue 32, item 2): no '' for "no cluster".

A claim stored with no cluster moves to a cluster of its own under its own claim key (or the
key a split derives from it, services._split_key, where a cluster already goes by its claim
key), and every cluster without a claim_clusters row gets one from the pipeline's own
statement (pipeline/sql/refresh_clusters.sql). Its standing priority does not move: a claim
alone already ranked on its own parts with one outlet, which is what its cluster of one
gives it. Then the check constraint keeps '' out.

Batched by id and not atomic, so a database with millions of claims is moved in short
transactions (each batch commits; a migration stopped halfway runs again from the start and
finds nothing left to move in the batches it did).
"""

import hashlib

from django.db import migrations, models, transaction
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from pipeline.sql import statement

BATCH = 10_000

OWN_CLUSTER = """
UPDATE claims c
SET cluster_key = c.claim_key
WHERE c.id > %s AND c.id <= %s AND c.cluster_key = ''
  AND NOT EXISTS (SELECT 1 FROM claims o WHERE o.cluster_key = c.claim_key)
"""
# Those whose own key a cluster goes by already: the key a split derives (services._split_key).
KEY_TAKEN = "SELECT id, claim_key FROM claims WHERE id > %s AND id <= %s AND cluster_key = ''"
DERIVED_CLUSTER = "UPDATE claims SET cluster_key = %s WHERE id = %s"
WITHOUT_ROW = """
SELECT COALESCE(array_agg(DISTINCT c.cluster_key), '{}')
FROM claims c
WHERE c.id > %s AND c.id <= %s
  AND NOT EXISTS (SELECT 1 FROM claim_clusters cc WHERE cc.cluster_key = c.cluster_key)
"""


def every_claim_in_a_cluster(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(max(id), 0) FROM claims")
        (last,) = cursor.fetchone()
    # Today's refresh_clusters.sql runs below, so today's claim_priority_parts with it (its
    # `priority`, claims migration 0039), whatever an earlier migration left defined.
    from factcheck.claims import sql_functions

    sql_functions.apply(schema_editor, ["claim_priority_parts"])
    for start in range(0, last, BATCH):
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute(OWN_CLUSTER, [start, start + BATCH])
            cursor.execute(KEY_TAKEN, [start, start + BATCH])
            for pk, claim_key in cursor.fetchall():
                cursor.execute(DERIVED_CLUSTER, [hashlib.sha1(f"split:{claim_key}".encode()).hexdigest(), pk])
            cursor.execute(WITHOUT_ROW, [start, start + BATCH])
            (keys,) = cursor.fetchone()
            if keys:
                cursor.execute(statement("refresh_clusters"), {"cluster_keys": keys})


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("claims", "0031_queue_stored_order"),
    ]

    operations = [
        migrations.RunPython(every_claim_in_a_cluster, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="claim",
            name="cluster_key",
            field=models.CharField(max_length=40),
        ),
        migrations.AddConstraint(
            model_name="claim",
            constraint=models.CheckConstraint(condition=models.Q(("cluster_key", ""), _negated=True), name="claim_cluster_key_set"),
        ),
    ]
