"""Django's own PostgreSQL backend, with the default queue's statements prepared.

A queue page's main statement takes PostgreSQL longer to plan than to run (seven tables, an
anti-join, a keyset): prepared on its connection, PostgreSQL plans it once and reuses the plan,
and the first page costs the server a third of what it did.

Only statements run inside `prepared()` are prepared. A statement whose best plan depends on
its values (a full-text search: one word matches ten claims, another ten thousand; an outlet
with ten claims or ten thousand) must never settle on the generic plan PostgreSQL switches a
prepared statement to after five runs, so preparing is chosen where it was measured, not for
everything. The statements inside bind their parameters on the server (psycopg cannot
prepare a statement it has merged its values into); every other statement keeps Django's
client-side binding, which has no limit on the number of values (an IN list of 100,000 ids).
DATABASE_PREPARED_STATEMENTS=0 turns preparing off, for a pooler in transaction mode that
cannot carry prepared statements (PgBouncer before 1.21).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import connection, transaction
from django.db.backends.postgresql import base
from django.db.backends.postgresql.operations import DatabaseOperations as PostgresOperations
from psycopg.errors import DataError

# What the settings add to a database's OPTIONS for this backend, not for libpq: a URL for the
# pipeline's own connections (runs.spark.database_url_for_job) leaves it out.
DJANGO_ONLY_OPTIONS = frozenset({"prepared_statements"})

_PREPARE: ContextVar[bool] = ContextVar("factcheck_prepare", default=False)


@contextmanager
def prepared() -> Iterator[None]:
    """Statements run inside are prepared on their connection (when the setting allows)."""
    token = _PREPARE.set(True)
    try:
        yield
    finally:
        _PREPARE.reset(token)


@contextmanager
def serial_plans() -> Iterator[None]:
    """Statements run inside are planned without parallel workers, in one transaction (the
    setting lasts until its end, so a pooler in transaction mode carries it too). Called inside
    another transaction it is a savepoint, and the setting lasts until that transaction ends:
    the queue's walks run in a request's autocommit, where it ends with the walk.

    For a walk down the queue's order that stops at a page (LIMIT 51): reading a few hundred
    index entries takes a millisecond or two, and the planner, costing the walk as if it might
    read the whole order, chose a parallel plan for the syndicated search in the whole article
    whose two workers took 7 ms to start, and under load took the cores other requests were
    waiting for. A count, which reads every match, keeps the server's parallel plans."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL max_parallel_workers_per_gather = 0")
        yield


class PreparingCursor(base.ServerBindingCursor):  # type: ignore[name-defined]  # not in django-stubs
    """Django's server-side binding cursor, preparing every statement it runs."""

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None) -> Any:
        # The connection prepares only here. With a threshold set for good, psycopg would count
        # the runs of every other statement too, keeping the text of the last hundred (an
        # import's IN list of a thousand hashes among them).
        self.connection.prepare_threshold = 0
        try:
            return super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)
        finally:
            self.connection.prepare_threshold = None


class DatabaseOperations(PostgresOperations):
    def last_executed_query(self, cursor: Any, sql: str, params: Any) -> str:
        # What Django's debug cursor records (tests' CaptureQueriesContext, DEBUG's query log):
        # a prepared statement's text, with its values, as Django writes it for server-side
        # binding; the others as psycopg sent them.
        if isinstance(cursor, PreparingCursor):
            try:
                return str(self.compose_sql(sql, params))
            except DataError:  # a value it cannot write: the statement as it was sent
                return sql
        return super().last_executed_query(cursor, sql, params)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        params.pop("prepared_statements", None)  # this backend's option, not libpq's
        return params

    def create_cursor(self, name: str | None = None) -> Any:
        if name is not None or not (_PREPARE.get() and self.settings_dict["OPTIONS"].get("prepared_statements", True)):
            return super().create_cursor(name)
        # Django's own cursor set-up (the time zone of its timestamps), from the preparing class.
        default, self.connection.cursor_factory = self.connection.cursor_factory, PreparingCursor
        try:
            return super().create_cursor(name)
        finally:
            self.connection.cursor_factory = default
