"""Recency moves from the stored priority to where the queue is read.

Stored, a claim's recency was counted back from the newest article stored, so every run that
brought a newer article rewrote every stored priority: a run's cost grew with the database,
not with what it added. Now:

- claims.priority is the claim's *standing* priority: the sum of the parts that change only
  when the claim, its cluster or the weights change (claim_priority_parts, four arguments);
- claims.seen_at is when its article was published (or imported), copied by the merge;
- claim_recency_points(seen_at, newest, weight, half_life_days) gives the recency points at
  read time; the queue adds them to the standing priority with the newest time of the claims
  it reads and the current weights (an IMMUTABLE SQL expression, so PostgreSQL inlines it).

claim_priority_basis keeps only the weights version (a merge catches up with weights whose
re-rank never ran).
"""

import json

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS

# As migration 0011's function, less recency and its two arguments.
PARTS_FORWARD = """
DROP FUNCTION claim_priority_parts(double precision, text, jsonb, bigint, timestamptz, timestamptz);
CREATE FUNCTION claim_priority_parts(
    score double precision, claim_type text, signals jsonb, outlets bigint
) RETURNS TABLE (parts jsonb) LANGUAGE sql STABLE PARALLEL SAFE ROWS 1 AS $fn$
SELECT jsonb_build_object(
    'checkworthiness', checkworthiness, 'public_interest', public_interest, 'source', source,
    'specificity', specificity, 'type', type, 'routine', routine, 'spread', spread,
    'outlets', outlets, 'topic', topic, 'weights_version', weights_version,
    'priority', round((checkworthiness + public_interest + source + specificity + type + routine + spread)::numeric, 4))
FROM (
    SELECT
        round(w_checkworthiness * COALESCE(score, 0) * 10000) / 10000 AS checkworthiness,
        round(w_public_interest * COALESCE((signals ->> 'public_interest')::float8, 0) * 10000) / 10000 AS public_interest,
        round(w_source * COALESCE((signals ->> 'source')::float8, 0) * 10000) / 10000 AS source,
        round(w_specificity * COALESCE((signals ->> 'specificity')::float8, 0) * 10000) / 10000 AS specificity,
        round(COALESCE((w ->> ('type_' || claim_type))::float8, 0) * 10000) / 10000 AS type,
        round(w_routine * COALESCE((signals ->> 'routine')::float8, 0) * 10000) / 10000 AS routine,
        round(w_spread * least(1.0, ln(greatest(COALESCE(outlets, 1), 1)) / ln(8)) * 10000) / 10000 AS spread,
        COALESCE(outlets, 1) AS outlets,
        COALESCE(signals ->> 'topic', '') AS topic,
        weights_version
    FROM (
        -- The weights as numbers once per statement (OFFSET 0 keeps this subquery from being
        -- flattened into every row's expressions).
        SELECT w, weights_version,
               COALESCE((w ->> 'checkworthiness')::float8, 0) AS w_checkworthiness,
               COALESCE((w ->> 'public_interest')::float8, 0) AS w_public_interest,
               COALESCE((w ->> 'source')::float8, 0) AS w_source,
               COALESCE((w ->> 'specificity')::float8, 0) AS w_specificity,
               COALESCE((w ->> 'routine')::float8, 0) AS w_routine,
               COALESCE((w ->> 'spread')::float8, 0) AS w_spread
        FROM (
            SELECT COALESCE((SELECT r.weights FROM ranking_weights r WHERE r.id = 1), %(defaults)s::jsonb) AS w,
                   COALESCE((SELECT r.version FROM ranking_weights r WHERE r.id = 1), 0) AS weights_version
        ) stored
        OFFSET 0
    ) weights
) points
$fn$;

-- Recency points: `weight` for a claim seen at `newest`, halving every `half_life_days`
-- before it; the exponent capped so that a very old claim gets 0, not a float underflow.
-- IMMUTABLE and a single expression, with the weights passed in (read once per query by the
-- caller): PostgreSQL inlines it into the calling query's ORDER BY.
CREATE FUNCTION claim_recency_points(
    seen_at timestamptz, newest timestamptz, weight double precision, half_life_days double precision
) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT round(COALESCE(weight, 0) * power(0.5::float8, least(1000.0,
    greatest(0, extract(epoch FROM COALESCE(newest, seen_at) - COALESCE(seen_at, newest)))::float8
        / 86400.0 / greatest(COALESCE(half_life_days, 7), 0.001))) * 10000) / 10000
$fn$;
"""
PARTS_BACKWARD = """
DROP FUNCTION claim_recency_points(timestamptz, timestamptz, double precision, double precision);
DROP FUNCTION claim_priority_parts(double precision, text, jsonb, bigint);
"""

BACKFILL_SEEN_AT = """
UPDATE claims c SET seen_at = COALESCE(a.published_at, a.created_at)
FROM articles a WHERE a.id = c.article_id AND c.seen_at IS DISTINCT FROM COALESCE(a.published_at, a.created_at);
"""

STANDING_PRIORITIES = """
WITH p AS (
    SELECT c.id, pp.parts
    FROM claims c
    LEFT JOIN claim_clusters cc ON cc.cluster_key = c.cluster_key
    CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.rank_signals, cc.outlet_count) pp
)
UPDATE claims c SET priority = (p.parts ->> 'priority')::double precision, priority_parts = p.parts - 'priority'
FROM p WHERE c.id = p.id
"""


def create_functions(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    # The defaults are spliced in as a literal: PostgreSQL takes no parameters in DDL.
    defaults = "'" + json.dumps(DEFAULT_RANKING_WEIGHTS, sort_keys=True).replace("'", "''") + "'"
    schema_editor.execute(PARTS_FORWARD.replace("%(defaults)s", defaults))


def drop_functions(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    schema_editor.execute(PARTS_BACKWARD)


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0014_merge_0011_ranking_0013_submission_keys'),
    ]

    operations = [
        migrations.AddField(
            model_name='claim',
            name='seen_at',
            field=models.DateTimeField(blank=True, null=True, help_text="When the claim's article was published (or imported)."),
        ),
        migrations.AlterField(
            model_name='claim',
            name='priority',
            field=models.FloatField(default=0.0, help_text="Standing priority: the sum of priority_parts' points; the queue adds recency when it reads."),
        ),
        migrations.RemoveField(model_name='prioritybasis', name='newest_at'),
        migrations.RunSQL(BACKFILL_SEEN_AT, migrations.RunSQL.noop),
        migrations.RunPython(create_functions, drop_functions),
        migrations.RunSQL(STANDING_PRIORITIES, migrations.RunSQL.noop),
    ]
