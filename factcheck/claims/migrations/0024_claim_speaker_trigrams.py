"""The speaker filter from an index (filters.claim_filter_q: UPPER(speaker) LIKE '%NAME%').

A case-insensitive substring of the name cannot use a b-tree: every page with a speaker filter
read every claim (a parallel sequential scan of the table). A trigram index (pg_trgm, a trusted
extension that the database's owner may create, offered by the managed PostgreSQL services)
answers it: a name no claim has costs nothing to find, and a common one is walked in queue order.
"""

import django.contrib.postgres.indexes
import django.db.models.functions.text
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0023_claim_text_has_words'),
    ]

    operations = [
        TrigramExtension(),
        migrations.AddIndex(
            model_name='claim',
            index=django.contrib.postgres.indexes.GinIndex(
                django.contrib.postgres.indexes.OpClass(django.db.models.functions.text.Upper('speaker'), name='gin_trgm_ops'),
                name='claim_speaker_trgm_idx',
            ),
        ),
        # The planner's estimates for the indexed expression come from ANALYZE, which a new
        # index does not start: without them a common name is planned as a rare one.
        migrations.RunSQL("ANALYZE claims", migrations.RunSQL.noop),
    ]
