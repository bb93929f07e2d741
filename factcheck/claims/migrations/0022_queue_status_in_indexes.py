"""A status filter read from the queue's indexes (factcheck/claims/queue_page.sql).

A filtered view walked claim_queue_order_idx reading every claim's row to skip those of other
statuses, and its band's candidates (index entries) were each read to be checked, though a
status like "check it" holds a tenth of the claims:

- claim_status_order_idx: (status, priority DESC, id DESC), replacing claim_status_idx (same
  leading column): a one-status view walks its own claims in standing order;
- claim_queue_day_idx now includes status: the band leaves out other statuses' entries from
  the index alone (filters.FilterSQL.in_index).
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0021_claim_queue_days'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='claim',
            name='claim_status_idx',
        ),
        migrations.RemoveIndex(
            model_name='claim',
            name='claim_queue_day_idx',
        ),
        migrations.AddIndex(
            model_name='claim',
            index=models.Index(
                models.Func(models.F('seen_at'), function='claim_seen_day', output_field=models.IntegerField()),
                models.OrderBy(models.F('priority'), descending=True),
                models.OrderBy(models.F('id'), descending=True),
                include=('seen_at', 'status'),
                name='claim_queue_day_idx',
            ),
        ),
        migrations.AddIndex(
            model_name='claim',
            index=models.Index(fields=['status', '-priority', '-id'], name='claim_status_order_idx'),
        ),
    ]
