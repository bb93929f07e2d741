"""The queue ranks what a desk would take, and a cluster as one claim (issue 29, items 1 and 2):

- claim_priority_parts() gains the contestability part: the weight "contestability" times the
  ranking model's probability that a desk would take the claim (rank_signals.contestability,
  pipeline.nlp.contestability). Stored weights saved before it get its default, as a new
  version, so the next merge or re-rank computes every priority with it.
- claim_clusters.lead_claim_id: the appearance whose own parts rank highest; every appearance
  of the cluster takes its parts (pipeline/sql/refresh_cluster_priorities.sql), so the
  cluster's rank does not depend on which outlet's wording the pipeline read.
- claims.model_version_id: the check-worthiness model version that scored the row.

Claims stored before this have no contestability signal (it counts 0) until a run scores them
again or `python manage.py rescore_claims` does.
"""

import json

import django.db.models.deletion
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS

PARTS = """
CREATE OR REPLACE FUNCTION claim_priority_parts(
    score double precision, claim_type text, signals jsonb, outlets bigint
) RETURNS TABLE (parts jsonb) LANGUAGE sql STABLE PARALLEL SAFE ROWS 1 AS $fn$
SELECT jsonb_build_object(
    'contestability', contestability, 'checkworthiness', checkworthiness, 'public_interest', public_interest,
    'source', source, 'specificity', specificity, 'type', type, 'routine', routine, 'spread', spread,
    'outlets', outlets, 'topic', topic, 'weights_version', weights_version,
    'priority', round((contestability + checkworthiness + public_interest + source + specificity + type + routine + spread)::numeric, 4))
FROM (
    SELECT
        round(w_contestability * COALESCE((signals ->> 'contestability')::float8, 0) * 10000) / 10000 AS contestability,
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
               COALESCE((w ->> 'contestability')::float8, 0) AS w_contestability,
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
"""

# As migration 0015 created it.
PARTS_BACKWARD = """
CREATE OR REPLACE FUNCTION claim_priority_parts(
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
"""

# Every cluster's lead (as pipeline/sql/refresh_clusters.sql keeps it), then every claim's
# standing priority from its cluster's lead (pipeline/sql/refresh_all_priorities.sql).
LEADS = """
UPDATE claim_clusters cc SET lead_claim_id = lead.id
FROM (
    SELECT DISTINCT ON (c.cluster_key) c.cluster_key, c.id
    FROM claims c CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.rank_signals, 1) own
    ORDER BY c.cluster_key, (own.parts ->> 'priority')::float8 DESC, c.id
) lead
WHERE lead.cluster_key = cc.cluster_key
"""


def _defaults() -> str:
    # Spliced in as a literal: PostgreSQL takes no parameters in DDL.
    return "'" + json.dumps(DEFAULT_RANKING_WEIGHTS, sort_keys=True).replace("'", "''") + "'"


def _previous_defaults() -> str:
    previous = {key: value for key, value in DEFAULT_RANKING_WEIGHTS.items() if key != "contestability"}
    return "'" + json.dumps(previous, sort_keys=True).replace("'", "''") + "'"


def forward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from pipeline.sql import statement

    schema_editor.execute(PARTS.replace("%(defaults)s", _defaults()))
    RankingWeights = apps.get_model("claims", "RankingWeights")
    stored = RankingWeights.objects.filter(pk=1).first()
    if stored is not None and "contestability" not in stored.weights:
        stored.weights = {**stored.weights, "contestability": DEFAULT_RANKING_WEIGHTS["contestability"]}
        stored.version += 1
        stored.save(update_fields=["weights", "version"])
    schema_editor.execute(LEADS)
    schema_editor.execute(statement("refresh_all_priorities"))


def backward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    schema_editor.execute(PARTS_BACKWARD.replace("%(defaults)s", _previous_defaults()))


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0025_claim_phrase_pairs'),
        ('learning', '0002_shipped_versions'),
    ]

    operations = [
        migrations.AddField(
            model_name='claim',
            name='model_version',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='learning.modelversion'),
        ),
        migrations.AddField(
            model_name='claimcluster',
            name='lead_claim',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='claims.claim'),
        ),
        migrations.RunPython(forward, backward),
    ]
