# The claims' run and model-version keys lose their constraints in the database (the ORM keeps
# SET_NULL and PROTECT): the merge checks the run and the version once (pipeline.merge.RUN_REFERENCES)
# where the constraints checked each of its rows at the commit. The indexes stay.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0039_priority_as_a_number'),
        ('learning', '0002_shipped_versions'),
        ('runs', '0003_run_progress_counts'),
    ]

    operations = [
        migrations.AlterField(
            model_name='claim',
            name='first_run',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='runs.pipelinerun'),
        ),
        migrations.AlterField(
            model_name='claim',
            name='last_run',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='runs.pipelinerun'),
        ),
        migrations.AlterField(
            model_name='claim',
            name='model_version',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='learning.modelversion'),
        ),
    ]
