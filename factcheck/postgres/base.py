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

from django.db.backends.postgresql import base

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


class PreparingCursor(base.ServerBindingCursor):  # type: ignore[name-defined]  # not in django-stubs
    """Django's server-side binding cursor, preparing every statement it runs."""

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None) -> Any:
        return super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        self.prepares = bool(params.pop("prepared_statements", True))
        if self.prepares:
            # psycopg prepares nothing on a connection without a threshold (Django sets none).
            # Django's client-side cursors never prepare whatever it is, and PreparingCursor
            # always does: the number itself is never used.
            params["prepare_threshold"] = 0
        return params

    def create_cursor(self, name: str | None = None) -> Any:
        if name is not None or not (getattr(self, "prepares", False) and _PREPARE.get()):
            return super().create_cursor(name)
        # Django's own cursor set-up (the time zone of its timestamps), from the preparing class.
        default, self.connection.cursor_factory = self.connection.cursor_factory, PreparingCursor
        try:
            return super().create_cursor(name)
        finally:
            self.connection.cursor_factory = default
