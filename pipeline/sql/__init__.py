"""The pipeline's SQL statements, one named `.sql` file each, loaded by name.

    statement("merge_claims")  ->  the text of pipeline/sql/merge_claims.sql

Read through importlib.resources, so they load from the source tree and from the zip
spark-submit ships to executors alike. Parameters are psycopg's named placeholders
(%(run_id)s); no statement is assembled from fragments.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def statement(name: str) -> str:
    return resources.files(__package__).joinpath(f"{name}.sql").read_text(encoding="utf-8")
