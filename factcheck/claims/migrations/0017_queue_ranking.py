"""What the queue needs to add recency as it reads (migration 0015 moved it out of the
stored priority):

- an index on claims.seen_at, so that the newest time stored (max(seen_at)) is one index
  lookup rather than a scan of every claim on every page;
- claim_queue_order_idx with seen_at included: the queue computes the totals of a range of
  standing priorities from the index alone (factcheck/claims/queue_page.sql);
- claim_queue_ranking(): that newest time and the current recency weight and half-life (the
  one row of ranking_weights, or the defaults claim_priority_parts also falls back to), in
  one place that every reader of the queue order calls once per statement;
- claim_recency_points() computed in double precision throughout: the same points (to the 4
  decimals it rounds to), but extract(epoch ...) gives numeric, and converting it cost most of
  the function's time, which the queue now spends on a range of claims per page.
"""

import json

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS

RANKING_FORWARD = """
CREATE FUNCTION claim_queue_ranking()
RETURNS TABLE (newest timestamptz, recency double precision, half_life_days double precision)
LANGUAGE sql STABLE PARALLEL SAFE ROWS 1 AS $fn$
SELECT (SELECT max(seen_at) FROM claims),
       COALESCE((w ->> 'recency')::float8, 0),
       COALESCE((w ->> 'recency_half_life_days')::float8, 7)
FROM (SELECT COALESCE((SELECT r.weights FROM ranking_weights r WHERE r.id = 1), %(defaults)s::jsonb) AS w) stored
$fn$;
"""
RANKING_BACKWARD = "DROP FUNCTION claim_queue_ranking();"

RECENCY_FORWARD = """
CREATE OR REPLACE FUNCTION claim_recency_points(
    seen_at timestamptz, newest timestamptz, weight double precision, half_life_days double precision
) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT round(COALESCE(weight, 0) * power(0.5::float8, least(1000.0::float8,
    greatest(0::float8, date_part('epoch', COALESCE(newest, seen_at) - COALESCE(seen_at, newest)))
        / 86400.0::float8 / greatest(COALESCE(half_life_days, 7), 0.001::float8))) * 10000) / 10000
$fn$;
"""
# As migration 0015 created it.
RECENCY_BACKWARD = """
CREATE OR REPLACE FUNCTION claim_recency_points(
    seen_at timestamptz, newest timestamptz, weight double precision, half_life_days double precision
) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT round(COALESCE(weight, 0) * power(0.5::float8, least(1000.0,
    greatest(0, extract(epoch FROM COALESCE(newest, seen_at) - COALESCE(seen_at, newest)))::float8
        / 86400.0 / greatest(COALESCE(half_life_days, 7), 0.001))) * 10000) / 10000
$fn$;
"""


def create_function(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    # The defaults are spliced in as a literal: PostgreSQL takes no parameters in DDL.
    defaults = "'" + json.dumps(DEFAULT_RANKING_WEIGHTS, sort_keys=True).replace("'", "''") + "'"
    schema_editor.execute(RANKING_FORWARD.replace("%(defaults)s", defaults))


def drop_function(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    schema_editor.execute(RANKING_BACKWARD)


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0016_claim_bands'),
    ]

    operations = [
        migrations.RemoveIndex(model_name='claim', name='claim_queue_order_idx'),
        migrations.AddIndex(
            model_name='claim',
            index=models.Index(fields=['-priority', '-id'], include=('seen_at',), name='claim_queue_order_idx'),
        ),
        migrations.AddIndex(
            model_name='claim',
            index=models.Index(fields=['seen_at'], name='claim_seen_at_idx'),
        ),
        migrations.RunPython(create_function, drop_function),
        migrations.RunSQL(RECENCY_FORWARD, RECENCY_BACKWARD),
    ]
