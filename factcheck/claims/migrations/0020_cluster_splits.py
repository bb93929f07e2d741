"""The cluster becomes the unit of triage: the reviewers' splits the pipeline's clustering must
respect, and every stored cluster's appearances brought to one reviewer state by the merge's
own rule (pipeline.merge.unify_clusters, pipeline/cluster_state.py) over every cluster of two
or more.

The unifying was the merge's own function then; the state has since moved to the cluster's row
(migrations 0034-0035) and that function with it, so on a database holding clusters of two or
more this migration must be run by a release from before that move. A new database has none.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

EVERY_SHARED_CLUSTER = """
SELECT COALESCE(array_agg(cluster_key), '{}') FROM (
    SELECT cluster_key FROM claims WHERE cluster_key <> '' GROUP BY cluster_key HAVING count(*) > 1
) shared
"""


def unify_stored_clusters(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(EVERY_SHARED_CLUSTER)
        (shared,) = cursor.fetchone()
    if shared:
        raise RuntimeError(
            "Clusters of two or more predate claims migration 0020: migrate to 0033 with a release before the cluster owned its state."
        )


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
