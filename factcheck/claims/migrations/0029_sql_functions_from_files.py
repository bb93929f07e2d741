"""The shared SQL functions from their one home, factcheck/claims/sql_functions/*.sql.

Migrations 0011-0027 defined and redefined them inline; this applies the current definitions
from the files (the same functions, so nothing stored changes), and later changes to a
function edit its file and re-apply it in a new migration. A function dropped later keeps its
definition here (RETIRED), since its file is gone.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def apply_functions(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from factcheck.claims import sql_functions

    # Named: later migrations add functions to the files (0031's read a table made there).
    sql_functions.apply(schema_editor, THEN_DEFINED)
    for definition in RETIRED.values():
        schema_editor.execute(definition.replace(sql_functions.DEFAULT_WEIGHTS_SLOT, sql_functions.default_weights_literal()))


THEN_DEFINED = ("claim_priority_parts", "claim_seen_day", "claim_word_pairs", "claim_query_pairs")

# Functions this migration defined whose files are gone since (migration 0033 drops them),
# as they stood here.
CLAIM_RECENCY_POINTS = """
-- Recency points: `weight` for a claim seen at `newest`, halving every `half_life_days`
-- before it; the exponent capped so that a very old claim gets 0, not a float underflow.
-- IMMUTABLE and a single expression, with the weights passed in (read once per query by the
-- caller): PostgreSQL inlines it into the calling query's ORDER BY. Double precision
-- throughout: extract(epoch ...) gives numeric, and converting it cost most of its time.
CREATE OR REPLACE FUNCTION claim_recency_points(
    seen_at timestamptz, newest timestamptz, weight double precision, half_life_days double precision
) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT round(COALESCE(weight, 0) * power(0.5::float8, least(1000.0::float8,
    greatest(0::float8, date_part('epoch', COALESCE(newest, seen_at) - COALESCE(seen_at, newest)))
        / 86400.0::float8 / greatest(COALESCE(half_life_days, 7), 0.001::float8))) * 10000) / 10000
$fn$;
"""

CLAIM_QUEUE_RANKING = """
-- The newest seen_at stored and the current recency weight and half-life (the one row of
-- ranking_weights, or the defaults claim_priority_parts also falls back to, spliced in where
-- the default_weights placeholder stands), in one place that every reader of the queue order
-- calls once per statement.
CREATE OR REPLACE FUNCTION claim_queue_ranking()
RETURNS TABLE (newest timestamptz, recency double precision, half_life_days double precision)
LANGUAGE sql STABLE PARALLEL SAFE ROWS 1 AS $fn$
SELECT (SELECT max(seen_at) FROM claims),
       COALESCE((w ->> 'recency')::float8, 0),
       COALESCE((w ->> 'recency_half_life_days')::float8, 7)
FROM (SELECT COALESCE((SELECT r.weights FROM ranking_weights r WHERE r.id = 1), %(default_weights)s::jsonb) AS w) stored
$fn$;
"""

CLAIM_TEXT_HAS_WORDS = """
-- Whether any claim's own text has a search's words, asked of the search index. Written as a
-- plain EXISTS, PostgreSQL plans a sequential scan expected to stop at the first match, which
-- for a word no claim has reads every claim; with sequential scans off the search index
-- answers at once for an absent word and with one posting list for a present one.
CREATE OR REPLACE FUNCTION claim_text_has_words(words tsquery) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET enable_seqscan = off
AS $fn$
SELECT EXISTS (SELECT FROM claims WHERE search @@ words)
$fn$;
"""

RETIRED = {
    "claim_recency_points": CLAIM_RECENCY_POINTS,
    "claim_queue_ranking": CLAIM_QUEUE_RANKING,
    "claim_text_has_words": CLAIM_TEXT_HAS_WORDS,
}


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0028_triage_labels'),
    ]

    operations = [
        # Backward: the functions stay, as migration 0028 left them (the same definitions).
        migrations.RunPython(apply_functions, migrations.RunPython.noop),
    ]
