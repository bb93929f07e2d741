"""The shared SQL functions have one home (factcheck/claims/sql_functions/*.sql): after the
migrations, the database holds exactly those functions, each as its file defines it."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources

import pytest
from django.db import connection, transaction

from factcheck.claims import sql_functions

pytestmark = pytest.mark.django_db

SCRATCH = "fc_function_check"

# The database's own functions of the public schema, less those an extension installed.
PUBLIC_FUNCTIONS = """
SELECT p.proname, pg_get_functiondef(p.oid)
FROM pg_proc p
WHERE p.pronamespace = %s::regnamespace
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
"""


def _functions(schema: str) -> dict[str, list[str]]:
    with connection.cursor() as cursor:
        cursor.execute(PUBLIC_FUNCTIONS, [schema])
        found: dict[str, list[str]] = {}
        for name, text in cursor.fetchall():
            # pg_get_functiondef names the schema: compare the definitions without it.
            found.setdefault(name, []).append(text.replace(f"{schema}.", "", 1))
        return found


@pytest.fixture
def from_files() -> Iterator[dict[str, list[str]]]:
    """Each file's function created afresh in a scratch schema, as PostgreSQL stores it."""
    with transaction.atomic():
        sid = transaction.savepoint()
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE SCHEMA {SCRATCH}")
            # Created in the scratch schema (first on the path); their bodies still find the
            # tables of public.
            cursor.execute(f"SET LOCAL search_path = {SCRATCH}, public")
            for name in sql_functions.FUNCTIONS:
                cursor.execute(sql_functions.definition(name))
            cursor.execute("SET LOCAL search_path = public")
        yield _functions(SCRATCH)
        transaction.savepoint_rollback(sid)


def test_every_function_file_is_listed() -> None:
    files = {entry.name.removesuffix(".sql") for entry in resources.files(sql_functions).iterdir() if entry.name.endswith(".sql")}
    assert files == set(sql_functions.FUNCTIONS)


def test_the_database_functions_are_the_files(from_files: dict[str, list[str]]) -> None:
    stored = _functions("public")
    assert set(stored) == set(from_files), "a function in the database without its file, or a file never applied"
    for name in sql_functions.FUNCTIONS:
        assert stored[name] == from_files[name], f"{name}: the database's definition is not its file's"


def test_a_changed_file_would_be_caught(from_files: dict[str, list[str]]) -> None:
    """The comparison sees a difference in a body: the file's definition with one constant
    changed is not the database's."""
    changed = sql_functions.definition("claim_seen_day").replace("'1970-01-01'", "'1970-01-02'")
    assert changed != sql_functions.definition("claim_seen_day")
    with transaction.atomic():
        sid = transaction.savepoint()
        with connection.cursor() as cursor:
            cursor.execute(changed)
        assert _functions("public")["claim_seen_day"] != from_files["claim_seen_day"]
        transaction.savepoint_rollback(sid)


def test_unknown_function_name_is_refused() -> None:
    with pytest.raises(ValueError, match="No SQL function file"):
        sql_functions.definition("claim_nothing")
