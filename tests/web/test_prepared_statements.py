"""Prepared statements (factcheck/postgres/base.py): the default queue's statements are planned
once per connection; a statement whose best plan depends on its values (a filter, a search)
is planned for them every time.

Persona: reviewer.
"""

from __future__ import annotations

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections

from factcheck.postgres.base import prepared
from tests.web.test_queue import logged_in, make_claim, shown_ids

pytestmark = pytest.mark.django_db


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def test_only_statements_inside_prepared_are_prepared_and_each_once() -> None:
    for _ in range(3):
        with prepared(), connection.cursor() as cursor:
            cursor.execute("SELECT %s::int + 1", [41])
            assert cursor.fetchone() == (42,)
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::int + 2", [40])
        assert cursor.fetchone() == (42,)
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements WHERE statement LIKE '%%::int +%%'")
        # Prepared once, run three times; the statement outside never prepared.
        assert cursor.fetchall() == [("SELECT $1::int + 1", 3)]
    # Nor counted by psycopg, which would keep its text to count its runs.
    assert connection.connection.prepare_threshold is None


def test_statements_outside_keep_client_side_binding_and_its_long_lists(reviewer) -> None:  # type: ignore[no-untyped-def]
    """The server takes at most 65,535 parameters a statement; Django's client-side binding
    sends a list of ids as literals, however long (a bulk action on every matching claim)."""
    from factcheck.claims.models import Claim

    claim = make_claim()
    assert Claim.objects.filter(pk__in=[claim.pk, *range(10**9, 10**9 + 70_000)]).count() == 1


def test_with_the_setting_off_nothing_is_prepared() -> None:
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    other.settings_dict = {**other.settings_dict, "OPTIONS": {**other.settings_dict["OPTIONS"], "prepared_statements": False}}
    try:
        with prepared(), other.cursor() as cursor:
            cursor.execute("SELECT %s::int + 3", [39])
            assert cursor.fetchone() == (42,)
            cursor.execute("SELECT count(*) FROM pg_prepared_statements")
            assert cursor.fetchone() == (0,)
    finally:
        other.close()


def queue_statements_prepared() -> set[str]:
    """The queue statements prepared on this connection so far (it outlives a test)."""
    return {statement for statement in prepared_statements() if 'FROM "claims"' in statement and '"queue_rank"' in statement}


def test_the_default_queue_is_prepared_a_filtered_or_searched_one_is_not(reviewer) -> None:  # type: ignore[no-untyped-def]
    claims = [make_claim(sentence=f"Unemployment rose to {n} per cent, the minister said.", priority=90 - n) for n in range(3)]
    client = logged_in(reviewer)
    assert shown_ids(client.get("/claims/").content.decode()) == [claim.pk for claim in claims]
    default = queue_statements_prepared()
    assert default
    # The same rows again, now from the prepared statement.
    assert shown_ids(client.get("/claims/").content.decode()) == [claim.pk for claim in claims]
    for query in ("?q=unemployment", f"?outlet={claims[0].article.outlet_id}", "?status=new"):
        assert client.get("/claims/" + query).status_code == 200
        assert queue_statements_prepared() == default, query
