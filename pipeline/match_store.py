"""Storing claim -> fact-check matches (tables claim_matches, factchecks; Django app
factcheck.factchecks owns their schema). Shared by the Spark job's sink and the web app, so the
rule for what a new match may overwrite is written once, in upsert_claim_matches.sql.

Parameters of UPSERT_CLAIM_MATCHES (psycopg named, one array each, same length):
claim_ids bigint[], factcheck_ids bigint[], scores double precision[], ranks smallint[] (1 = best).
"""

from __future__ import annotations

from importlib.resources import files

# Through importlib.resources: Spark ships the package as a zip (--py-files), where a path
# relative to __file__ does not exist.
UPSERT_CLAIM_MATCHES = files("pipeline").joinpath("sql", "upsert_claim_matches.sql").read_text(encoding="utf-8")
