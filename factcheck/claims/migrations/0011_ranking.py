"""Ranking with a reason: each claim's ranking signals and context, the one-row weights table,
and the formula as one PostgreSQL function that the pipeline's merge and the web app's re-rank
both call (see factcheck/claims/ranking/priority.py for what each weight does)."""

import json

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS

STAGING_FORWARD = """
ALTER TABLE claim_staging
    ADD COLUMN rank_signals jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN context text NOT NULL DEFAULT '';
"""
STAGING_BACKWARD = "ALTER TABLE claim_staging DROP COLUMN rank_signals, DROP COLUMN context;"

# claim_priority_parts: every part of a claim's priority, in points rounded to 4 places, and
# `priority`, their sum (so claims separate: no rounding to whole points), as one row of one
# jsonb column. Read with the weights of ranking_weights' one row; without that row (a test
# flush empties the table) with the defaults this migration was written with, as version 0.
# Recency counts back from `newest` (the newest article stored, as the caller fixes it for a
# whole statement), the exponent capped so that a very old claim gets 0, not a float underflow.
#
# A set-returning SQL function, called in FROM (CROSS JOIN LATERAL claim_priority_parts(...)):
# PostgreSQL inlines it into the calling query, so the weights are read once per statement
# and each claim costs a few expressions. As a scalar function reading a table it was run
# through the SQL-function executor for every row: 190 us a claim, 38 s for 200,000 (now
# 7 us, 1.4 s; load average 4 on 2 cores).
FUNCTION_FORWARD = """
CREATE FUNCTION claim_priority_parts(
    score double precision, claim_type text, signals jsonb, outlets bigint, seen_at timestamptz, newest timestamptz
) RETURNS TABLE (parts jsonb) LANGUAGE sql STABLE PARALLEL SAFE ROWS 1 AS $fn$
SELECT jsonb_build_object(
    'checkworthiness', checkworthiness, 'public_interest', public_interest, 'source', source,
    'specificity', specificity, 'type', type, 'routine', routine, 'spread', spread, 'recency', recency,
    'outlets', outlets, 'topic', topic, 'weights_version', weights_version,
    'priority', round((checkworthiness + public_interest + source + specificity + type + routine + spread + recency)::numeric, 4))
FROM (
    SELECT
        round(w_checkworthiness * COALESCE(score, 0) * 10000) / 10000 AS checkworthiness,
        round(w_public_interest * COALESCE((signals ->> 'public_interest')::float8, 0) * 10000) / 10000 AS public_interest,
        round(w_source * COALESCE((signals ->> 'source')::float8, 0) * 10000) / 10000 AS source,
        round(w_specificity * COALESCE((signals ->> 'specificity')::float8, 0) * 10000) / 10000 AS specificity,
        round(COALESCE((w ->> ('type_' || claim_type))::float8, 0) * 10000) / 10000 AS type,
        round(w_routine * COALESCE((signals ->> 'routine')::float8, 0) * 10000) / 10000 AS routine,
        round(w_spread * least(1.0, ln(greatest(COALESCE(outlets, 1), 1)) / ln(8)) * 10000) / 10000 AS spread,
        round(w_recency * power(0.5::float8, least(1000.0,
            greatest(0, extract(epoch FROM COALESCE(newest, seen_at) - seen_at))::float8 / 86400.0 / w_half_life)) * 10000) / 10000 AS recency,
        COALESCE(outlets, 1) AS outlets,
        COALESCE(signals ->> 'topic', '') AS topic,
        weights_version
    FROM (
        -- The weights as numbers once per statement (OFFSET 0 keeps this subquery from being
        -- flattened into every row's expressions: 27 -> 7 us a claim).
        SELECT w, weights_version,
               COALESCE((w ->> 'checkworthiness')::float8, 0) AS w_checkworthiness,
               COALESCE((w ->> 'public_interest')::float8, 0) AS w_public_interest,
               COALESCE((w ->> 'source')::float8, 0) AS w_source,
               COALESCE((w ->> 'specificity')::float8, 0) AS w_specificity,
               COALESCE((w ->> 'routine')::float8, 0) AS w_routine,
               COALESCE((w ->> 'spread')::float8, 0) AS w_spread,
               COALESCE((w ->> 'recency')::float8, 0) AS w_recency,
               greatest(COALESCE((w ->> 'recency_half_life_days')::float8, 7), 0.001) AS w_half_life
        FROM (
            SELECT COALESCE((SELECT r.weights FROM ranking_weights r WHERE r.id = 1), %(defaults)s::jsonb) AS w,
                   COALESCE((SELECT r.version FROM ranking_weights r WHERE r.id = 1), 0) AS weights_version
        ) stored
        OFFSET 0
    ) weights
) points
$fn$;
"""
FUNCTION_BACKWARD = "DROP FUNCTION claim_priority_parts(double precision, text, jsonb, bigint, timestamptz, timestamptz);"

BATCH = 2000

# The statements this migration ran as they stood then (pipeline.db has moved on since: a
# migration must not change with the code).
NEWEST_ARTICLE = "SELECT COALESCE(max(COALESCE(published_at, created_at)), now()) AS at FROM articles"
REFRESH_PRIORITIES = """
WITH p AS (
    SELECT c.id, pp.parts
    FROM claims c
    JOIN articles a ON a.id = c.article_id
    LEFT JOIN claim_clusters cc ON cc.cluster_key = c.cluster_key
    CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.rank_signals, cc.outlet_count,
                                            COALESCE(a.published_at, a.created_at), %(newest)s::timestamptz) pp
)
UPDATE claims c SET priority = (p.parts ->> 'priority')::double precision, priority_parts = p.parts - 'priority'
FROM p
WHERE c.id = p.id AND (c.priority, c.priority_parts) IS DISTINCT FROM ((p.parts ->> 'priority')::double precision, p.parts - 'priority')
"""


def seed_weights(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    apps.get_model("claims", "RankingWeights").objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})


def create_function(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    # The defaults are spliced in as a literal: PostgreSQL takes no parameters in DDL.
    defaults = "'" + json.dumps(DEFAULT_RANKING_WEIGHTS, sort_keys=True).replace("'", "''") + "'"
    schema_editor.execute(FUNCTION_FORWARD.replace("%(defaults)s", defaults))


def drop_function(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    schema_editor.execute(FUNCTION_BACKWARD)


def rank_stored_claims(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    """The stored claims' signals, then every priority with the new formula, against the
    newest-article time the stored priorities were computed with."""
    from pipeline.nlp.ranking import rank_signals

    with schema_editor.connection.cursor() as cursor:
        last_id = 0
        while True:
            cursor.execute(
                "SELECT id, sentence, claim_type, claim_types, quantities::text, speaker, speaker_title, attribution"
                " FROM claims WHERE id > %s ORDER BY id LIMIT %s",
                [last_id, BATCH],
            )
            rows = cursor.fetchall()
            if not rows:
                break
            cursor.executemany(
                "UPDATE claims SET rank_signals = %s::jsonb WHERE id = %s",
                [
                    (json.dumps(rank_signals(
                        sentence=sentence, claim_type=claim_type, claim_types=claim_types or [],
                        quantities=json.loads(quantities or "[]"), speaker=speaker, speaker_title=speaker_title,
                        attribution=attribution,
                    ), sort_keys=True), claim_id)
                    for claim_id, sentence, claim_type, claim_types, quantities, speaker, speaker_title, attribution in rows
                ],
            )
            last_id = rows[-1][0]
        cursor.execute(f"SELECT COALESCE((SELECT newest_at FROM claim_priority_basis ORDER BY id LIMIT 1), ({NEWEST_ARTICLE}))")
        (newest,) = cursor.fetchone()
        cursor.execute(REFRESH_PRIORITIES, {"newest": newest})
        cursor.execute("UPDATE claim_priority_basis SET weights_version = COALESCE((SELECT version FROM ranking_weights WHERE id = 1), 0)")


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0010_priority_basis'),
    ]

    operations = [
        migrations.AddField(
            model_name='claim',
            name='context',
            field=models.TextField(blank=True, db_default='', default=''),
        ),
        migrations.AddField(
            model_name='claim',
            name='rank_signals',
            field=models.JSONField(blank=True, db_default=models.Value({}, output_field=models.JSONField()), default=dict),
        ),
        migrations.AlterField(
            model_name='claim',
            name='priority',
            field=models.FloatField(default=0.0, help_text="Queue rank: the sum of priority_parts' points."),
        ),
        migrations.CreateModel(
            name='RankingWeights',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('weights', models.JSONField()),
                ('version', models.PositiveIntegerField(default=1)),
                ('updated_at', models.DateTimeField(auto_now=True)),
            ],
            options={
                'verbose_name_plural': 'ranking weights',
                'db_table': 'ranking_weights',
                'constraints': [models.CheckConstraint(condition=models.Q(('id', 1)), name='ranking_weights_one_row')],
            },
        ),
        migrations.AddField(
            model_name='prioritybasis',
            name='weights_version',
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.RunSQL(STAGING_FORWARD, STAGING_BACKWARD),
        migrations.RunPython(seed_weights, migrations.RunPython.noop),
        migrations.RunPython(create_function, drop_function),
        migrations.RunPython(rank_stored_claims, migrations.RunPython.noop),
    ]
