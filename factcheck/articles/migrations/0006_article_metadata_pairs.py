"""The metadata filter on an array PostgreSQL can count (issue 32).

`metadata @> {"category": "politics"}` is answered by a GIN index, but PostgreSQL keeps no
statistics it can use for a jsonb containment and assumes a thousandth of the articles: a
category held by a fifth of them was planned as two articles, and the queue read every claim
of them before ordering. `metadata_pairs` holds the same pairs as text (the SQL function
article_metadata_pairs, factcheck/claims/sql_functions/), kept by PostgreSQL itself; ANALYZE
counts an array column's common elements, so a filter on it is planned from how many
articles hold the pair. Its GIN index replaces the jsonb one, which nothing asks any more.
"""

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
from django.db import migrations, models


def apply_function(apps, schema_editor):
    from factcheck.claims import sql_functions

    sql_functions.apply(schema_editor, ["article_metadata_pairs"])


class Migration(migrations.Migration):

    dependencies = [
        ('articles', '0005_article_published_at_in_range'),
    ]

    operations = [
        # Backward: the function stays (the column that used it is gone).
        migrations.RunPython(apply_function, migrations.RunPython.noop),
        migrations.RemoveIndex(
            model_name='article',
            name='article_metadata_idx',
        ),
        migrations.AddField(
            model_name='article',
            name='metadata_pairs',
            field=models.GeneratedField(
                db_persist=True,
                expression=models.Func(models.F('metadata'), function='article_metadata_pairs', output_field=django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), size=None)),
                output_field=django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), size=None),
            ),
        ),
        migrations.AddIndex(
            model_name='article',
            index=django.contrib.postgres.indexes.GinIndex(fields=['metadata_pairs'], name='article_metadata_pairs_idx'),
        ),
    ]
