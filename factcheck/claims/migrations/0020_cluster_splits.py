"""The cluster becomes the unit of triage: the reviewers' splits the pipeline's clustering must
respect, and every stored cluster's appearances brought to one reviewer state by the merge's
own rule (pipeline.merge.unify_clusters, pipeline/cluster_state.py) over every cluster of two
or more."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from pipeline.merge import unify_clusters

EVERY_SHARED_CLUSTER = """
SELECT COALESCE(array_agg(cluster_key), '{}') FROM (
    SELECT cluster_key FROM claims WHERE cluster_key <> '' GROUP BY cluster_key HAVING count(*) > 1
) shared
"""


def unify_stored_clusters(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(EVERY_SHARED_CLUSTER)
        (shared,) = cursor.fetchone()
    # No run merged these: the audit rows name each cluster alone. The merge's function takes
    # a psycopg connection: Django's own, in the migration's transaction.
    unify_clusters(schema_editor.connection.connection, run_id=None, cluster_keys=shared)


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0019_verdict_claim_reviewed'),
        ('audit', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ClusterSplit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('claim_key', models.CharField(max_length=40)),
                ('apart_cluster_key', models.CharField(max_length=40)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('split_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'db_table': 'claim_cluster_splits',
                'indexes': [models.Index(fields=['claim_key'], name='cluster_split_claim_idx'), models.Index(fields=['apart_cluster_key'], name='cluster_split_apart_idx')],
            },
        ),
        migrations.RunPython(unify_stored_clusters, migrations.RunPython.noop),
    ]
