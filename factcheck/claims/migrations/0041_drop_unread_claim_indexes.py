# Two indexes on claims that nothing reads any more, paid for on every insert of the merge and on
# every rewrite of a rank (the order's refresh when the day turns changes queue_rank, an indexed
# column, so each row rewritten goes into every index): claim_seen_at_idx served the recency the
# queue computed at read time (0017), which the stored order replaced (0031); last_run's index
# served nothing but the ORM's SET_NULL when a run is deleted, which nothing in the product does
# (the admin may: it then reads the table once).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0040_claim_run_keys_without_constraints'),
        ('runs', '0003_run_progress_counts'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='claim',
            name='claim_seen_at_idx',
        ),
        migrations.AlterField(
            model_name='claim',
            name='last_run',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='runs.pipelinerun'),
        ),
    ]
