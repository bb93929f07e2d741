"""The queue's band read day by day (factcheck/claims/queue_page.sql).

A page's candidates are the claims whose total (standing priority plus recency) can reach the
page's lowest total L. Read through claim_queue_order_idx, that is every claim whose standing
priority lies within the recency weight below the page: tens of thousands of index entries
half way down a queue of 200,000, each with its recency computed. Within one day a claim's
recency varies little (a tenth of it at the default week's half-life), so, read one day at a
time through claim_queue_day_idx, only the claims within that day's recency of the page are
candidates.

- claim_seen_day(seen_at): the UTC day a claim was seen, as days since 1970-01-01 (IMMUTABLE:
  a UTC date does not depend on the session's time zone, so it can be indexed);
- claim_queue_day_idx: (that day, priority DESC, id DESC), with seen_at included so that each
  candidate's recency comes from the index alone.
"""

from django.db import migrations, models
from django.db.models import F, Func, IntegerField

DAY_FORWARD = """
CREATE FUNCTION claim_seen_day(seen_at timestamptz) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT (seen_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01'
$fn$;
"""
DAY_BACKWARD = "DROP FUNCTION claim_seen_day(timestamptz);"


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0020_cluster_splits'),
    ]

    operations = [
        migrations.RunSQL(DAY_FORWARD, DAY_BACKWARD),
        migrations.AddIndex(
            model_name='claim',
            index=models.Index(
                Func(F('seen_at'), function='claim_seen_day', output_field=IntegerField()),
                F('priority').desc(),
                F('id').desc(),
                include=('seen_at',),
                name='claim_queue_day_idx',
            ),
        ),
    ]
