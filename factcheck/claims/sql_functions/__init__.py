"""The PostgreSQL functions the web app and the pipeline share, one `.sql` file each: the
current definition, the one home of each.

    definition("claim_seen_day")  ->  the CREATE OR REPLACE FUNCTION statement to run

Migrations apply them (`apply`); tests/web/test_sql_functions.py checks that the database's
functions are exactly these files. To change a function: edit its file and add a migration
that runs `apply(schema_editor, ["its_name"])` (and whatever its new results need, such as
recomputing stored priorities). Migrations before 0029 wrote their definitions inline; they
stay as history. To retire one: a migration drops it, and the migrations that applied its file
keep its text inline (as 0029 does), since the file goes.

A file's only substitution is the default ranking weights, spliced in as a jsonb literal
where `%(default_weights)s` stands (PostgreSQL takes no parameters in DDL).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources
from typing import Any

from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS

# In the order they can be created from nothing: a function comes after those it calls.
FUNCTIONS = (
    "claim_priority_parts",
    "claim_seen_day",
    "claim_word_pairs",
    "claim_search_vector",
    "claims_fill_search",
    "claim_query_pairs",
    "claim_queue_weights",
    "claim_queue_rank_at",
    "claim_queue_basis",
    "claims_set_queue_rank",
    "article_metadata_pairs",
    "claim_repeat_weight",
)

DEFAULT_WEIGHTS_SLOT = "%(default_weights)s"

# Functions whose file changed their result type (CREATE OR REPLACE cannot): apply drops the
# old one first, so every migration that applies the file, the earliest included, creates
# the current one. Only functions nothing depends on in the catalogue (no trigger, index or
# view) can be listed. claim_priority_parts gained `priority` in claims migration 0039.
RESULT_CHANGED = {"claim_priority_parts": "claim_priority_parts(double precision, text, jsonb, bigint)"}


def default_weights_literal() -> str:
    return "'" + json.dumps(DEFAULT_RANKING_WEIGHTS, sort_keys=True).replace("'", "''") + "'"


def definition(name: str) -> str:
    if name not in FUNCTIONS:
        raise ValueError(f"No SQL function file for {name!r}: add it to FUNCTIONS.")
    text = resources.files(__package__).joinpath(f"{name}.sql").read_text(encoding="utf-8")
    return text.replace(DEFAULT_WEIGHTS_SLOT, default_weights_literal())


def apply(schema_editor: Any, names: Iterable[str] = FUNCTIONS) -> None:
    """Create or replace each named function from its file (a migration's schema editor, or
    any object with execute(sql))."""
    for name in names:
        if name in RESULT_CHANGED:
            schema_editor.execute(f"DROP FUNCTION IF EXISTS {RESULT_CHANGED[name]}")
        schema_editor.execute(definition(name))
