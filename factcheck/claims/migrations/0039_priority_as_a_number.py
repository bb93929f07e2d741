"""claim_priority_parts returns the standing priority as a number beside its parts (issue 34: the
serial tail). The merge and refresh_clusters choose each cluster's lead by every appearance's
own priority: they built every appearance's parts as jsonb only to read the sum back out of
it. Its result type changes, so the function is dropped and created anew from its file
(sql_functions.RESULT_CHANGED).
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

SIGNATURE = "claim_priority_parts(double precision, text, jsonb, bigint)"

# The definition before this migration, for the way back (its file's text until now).
PARTS_ONLY = """
CREATE FUNCTION claim_priority_parts(
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
            SELECT COALESCE((SELECT r.weights FROM ranking_weights r WHERE r.id = 1), %(default_weights)s::jsonb) AS w,
                   COALESCE((SELECT r.version FROM ranking_weights r WHERE r.id = 1), 0) AS weights_version
        ) stored
        OFFSET 0
    ) weights
) points
$fn$;
"""


def forward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from factcheck.claims import sql_functions

    sql_functions.apply(schema_editor, ["claim_priority_parts"])  # dropped first: sql_functions.RESULT_CHANGED


def backward(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from factcheck.claims import sql_functions

    schema_editor.execute(f"DROP FUNCTION {SIGNATURE}")
    schema_editor.execute(PARTS_ONLY.replace(sql_functions.DEFAULT_WEIGHTS_SLOT, sql_functions.default_weights_literal()))


class Migration(migrations.Migration):
    dependencies = [("claims", "0038_queue_rank_from_the_merge")]

    operations = [migrations.RunPython(forward, backward)]
