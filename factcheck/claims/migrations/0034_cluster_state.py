"""The cluster owns the work (issue 32, item 2), first step: claim_clusters gets the reviewer
state (status, assignee, tags, dismiss_reason, version), filled from its appearances.

Every cluster without a row gets one first (a claim saved outside the pipeline since 0032),
from the pipeline's own statement (pipeline/sql/refresh_clusters.sql). A cluster's appearances
agree on their state (the services wrote all of them; the merge unified them): the cluster
takes its first appearance's; where they differ after all, the one rule takes over
(pipeline.cluster_state.merged_state). Migration 0035 then drops the copies from claims.

Batched by id and not atomic, so a database with millions of claims is moved in short
transactions (each batch commits; one stopped halfway runs again from the start and writes
the same values).
"""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import migrations, models, transaction
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from pipeline.cluster_state import ClusterState, ReviewState, merged_state
from pipeline.sql import statement

BATCH = 10_000

WITHOUT_ROW = """
SELECT COALESCE(array_agg(DISTINCT c.cluster_key), '{}')
FROM claims c
WHERE c.id > %s AND c.id <= %s
  AND NOT EXISTS (SELECT 1 FROM claim_clusters cc WHERE cc.cluster_key = c.cluster_key)
"""
FIRST_APPEARANCE_STATE = """
UPDATE claim_clusters cc
SET status = f.status, assignee_id = f.assignee_id, tags = f.tags, dismiss_reason = f.dismiss_reason, version = f.version
FROM (
    SELECT DISTINCT ON (c.cluster_key) c.cluster_key, c.status, c.assignee_id, c.tags, c.dismiss_reason, c.version
    FROM claim_clusters k
    JOIN claims c ON c.cluster_key = k.cluster_key
    WHERE k.id > %s AND k.id <= %s
    ORDER BY c.cluster_key, c.id
) f
WHERE cc.cluster_key = f.cluster_key
"""
DIFFERING = """
SELECT c.cluster_key, c.id, c.status, c.assignee_id, c.tags, c.dismiss_reason, c.version
FROM claims c
WHERE c.cluster_key IN (
    SELECT m.cluster_key
    FROM claim_clusters k
    JOIN claims m ON m.cluster_key = k.cluster_key
    WHERE k.id > %s AND k.id <= %s
    GROUP BY m.cluster_key
    HAVING count(DISTINCT (m.status, m.assignee_id, m.tags, m.dismiss_reason, m.version)) > 1
)
ORDER BY c.cluster_key, c.id
"""
SET_STATE = """
UPDATE claim_clusters SET status = %s, assignee_id = %s, tags = %s, dismiss_reason = %s, version = %s
WHERE cluster_key = %s
"""


def cluster_state(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(max(id), 0) FROM claims")
        (last_claim,) = cursor.fetchone()
    # Today's refresh_clusters.sql runs below, so today's claim_priority_parts with it (its
    # `priority`, claims migration 0039), whatever an earlier migration left defined.
    from factcheck.claims import sql_functions

    sql_functions.apply(schema_editor, ["claim_priority_parts"])
    for start in range(0, last_claim, BATCH):
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute(WITHOUT_ROW, [start, start + BATCH])
            (keys,) = cursor.fetchone()
            if keys:
                cursor.execute(statement("refresh_clusters"), {"cluster_keys": keys})
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(max(id), 0) FROM claim_clusters")
        (last_cluster,) = cursor.fetchone()
    for start in range(0, last_cluster, BATCH):
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute(FIRST_APPEARANCE_STATE, [start, start + BATCH])
            cursor.execute(DIFFERING, [start, start + BATCH])
            members: dict[str, list[ClusterState]] = {}
            for key, pk, status, assignee_id, tags, reason, version in cursor.fetchall():
                members.setdefault(key, []).append(ClusterState(first_id=pk, state=ReviewState(status, assignee_id, tuple(tags), reason), version=version))
            for key, states in members.items():
                if (merged := merged_state(states)) is not None:
                    state = merged.state
                    cursor.execute(SET_STATE, [state.status, state.assignee_id, list(state.tags), state.dismiss_reason, merged.version, key])


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("claims", "0033_drop_retired_sql_functions"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="claimcluster",
            name="status",
            field=models.CharField(
                choices=[("new", "New"), ("check", "Check it"), ("dismissed", "Dismissed"), ("in_research", "In research"),
                         ("drafted", "Verdict drafted"), ("approved", "Approved"), ("returned", "Returned")],
                db_default="new", default="new", max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="claimcluster",
            name="assignee",
            field=models.ForeignKey(
                blank=True, db_index=False, null=True, on_delete=models.deletion.SET_NULL, related_name="assigned_clusters",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="claimcluster",
            name="tags",
            field=ArrayField(
                base_field=models.CharField(max_length=40), blank=True,
                db_default=models.Value([], output_field=ArrayField(base_field=models.CharField(max_length=40), size=None)),
                default=list, size=None,
            ),
        ),
        migrations.AddField(
            model_name="claimcluster",
            name="dismiss_reason",
            field=models.CharField(blank=True, db_default="", default="", max_length=300),
        ),
        migrations.AddField(
            model_name="claimcluster",
            name="version",
            field=models.PositiveIntegerField(db_default=1, default=1),
        ),
        migrations.RunPython(cluster_state, migrations.RunPython.noop),
    ]
