"""One figure, one place at the top (issue 29; pipeline.nlp.stories): a cluster whose figure and
actor a cluster ranked above already carries is held back by the new weight "repeat".

Clusters get their lead wording's story keys (GIN-indexed) and the cluster they repeat; the
SQL functions holding the default weights are applied again (the defaults gained "repeat")
with claim_repeat_weight; stored weights take the default "repeat" (the same version: the
priorities below are computed with it); stored claims get their story keys in batches, and
every cluster is decided once (pipeline/stories_store.py).
"""

import json

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
from django.conf import settings
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

BATCH = 5000
READ_BATCH = """
SELECT id, sentence, quantities, speaker, attribution FROM claims WHERE id > %s ORDER BY id LIMIT %s
"""
WRITE_BATCH = """
UPDATE claims c SET rank_signals = c.rank_signals || jsonb_build_object('story', v.story)
FROM unnest(%s::bigint[], %s::jsonb[]) AS v(id, story)
WHERE c.id = v.id
"""


def forward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from factcheck.claims import sql_functions
    from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS
    from pipeline.nlp.stories import story_keys
    from pipeline.stories_store import refresh_story_repeats

    sql_functions.apply(schema_editor, ["claim_priority_parts", "claim_queue_weights", "claim_repeat_weight"])
    RankingWeights = apps.get_model("claims", "RankingWeights")
    stored = RankingWeights.objects.filter(pk=1).first()
    if stored is not None and "repeat" not in stored.weights:
        stored.weights = {**stored.weights, "repeat": DEFAULT_RANKING_WEIGHTS["repeat"]}
        stored.save(update_fields=["weights"])
    with schema_editor.connection.cursor() as cursor:
        last = 0
        while True:
            cursor.execute(READ_BATCH, [last, BATCH])
            rows = cursor.fetchall()
            if not rows:
                break
            last = rows[-1][0]
            found = [
                (pk, keys)
                for pk, sentence, quantities, speaker, attribution in rows
                if (keys := story_keys(
                    sentence=sentence, quantities=quantities if isinstance(quantities, list) else [], speaker=speaker, attribution=attribution,
                ))
            ]
            if found:
                cursor.execute(WRITE_BATCH, [[pk for pk, _ in found], [json.dumps(keys) for _, keys in found]])
        refresh_story_repeats(cursor, None)


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0035_claim_cluster_fk'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='claimcluster',
            name='repeat_of',
            field=models.CharField(blank=True, max_length=40, null=True),
        ),
        migrations.AddField(
            model_name='claimcluster',
            name='story_keys',
            field=django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=300), blank=True, db_default=models.Value([], output_field=django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=300), size=None)), default=list, size=None),
        ),
        migrations.AddIndex(
            model_name='claimcluster',
            index=django.contrib.postgres.indexes.GinIndex(fields=['story_keys'], name='cluster_story_keys_idx'),
        ),
        migrations.AddIndex(
            model_name='claimcluster',
            index=models.Index(condition=models.Q(('repeat_of__isnull', False)), fields=['repeat_of'], name='cluster_repeat_of_idx'),
        ),
        migrations.RunPython(forward, migrations.RunPython.noop),
    ]
