"""Prepared statements (factcheck/postgres/base.py): the default queue's statements are planned
once per connection; a statement whose best plan depends on its values (a filter, a search)
is planned for them every time.

Persona: reviewer.
"""

from __future__ import annotations

import re

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


def queue_walks_prepared() -> set[str]:
    """The walks down the queue's order prepared on this connection so far (it outlives a
    test): the statements that choose a page's rows, not the one that reads what a filtered
    page's rows show by their ids."""
    return {
        statement for statement in prepared_statements()
        if 'FROM "claims"' in statement and '"queue_rank"' in statement and '"claims"."id" IN (' not in statement
    }


def rows_read_prepared(count: int) -> set[str]:
    """The statements prepared that read what a page of `count` rows shows, by their ids."""
    ids = re.compile(r'"claims"\."id" IN \(' + ", ".join([r"\$\d+"] * count) + r"\)")
    return {statement for statement in prepared_statements() if '"sentence"' in statement and ids.search(statement)}


def test_the_default_queue_is_prepared_a_filtered_or_searched_one_is_not(reviewer) -> None:  # type: ignore[no-untyped-def]
    claims = [make_claim(sentence=f"Unemployment rose to {n} per cent, the minister said.", priority=90 - n) for n in range(3)]
    client = logged_in(reviewer)
    assert shown_ids(client.get("/claims/").content.decode()) == [claim.pk for claim in claims]
    default = queue_walks_prepared()
    assert default
    # The same rows again, now from the prepared statement.
    assert shown_ids(client.get("/claims/").content.decode()) == [claim.pk for claim in claims]
    for query in ("?q=unemployment", f"?outlet={claims[0].article.outlet_id}", "?status=new"):
        assert client.get("/claims/" + query).status_code == 200
        assert queue_walks_prepared() == default, query


def test_what_a_filtered_page_shows_is_read_by_one_prepared_statement_whatever_the_filters(reviewer) -> None:  # type: ignore[no-untyped-def]
    """The default view reads its rows' columns in its own prepared walk; a filtered or searched
    page reads them by id, in one statement whatever the filters."""
    claims = [make_claim(sentence=f"Unemployment rose to {n} per cent, the minister said.", priority=90 - n) for n in range(3)]
    client = logged_in(reviewer)
    assert shown_ids(client.get("/claims/").content.decode()) == [claim.pk for claim in claims]
    assert not rows_read_prepared(3)
    for query in (f"?outlet={claims[0].article.outlet_id}", "?status=new", "?score_min=0.1"):
        assert shown_ids(client.get("/claims/" + query).content.decode()) == [claim.pk for claim in claims], query
    read = rows_read_prepared(3)
    assert len(read) == 1 and "ts_headline" not in next(iter(read))
    # A search reads its highlighted sentences as well: one statement more, its words a parameter.
    for words in ("unemployment", "minister"):
        page = client.get(f"/claims/?q={words}").content.decode()
        assert shown_ids(page) == [claim.pk for claim in claims]
        assert f"<mark>{words.capitalize() if words == 'unemployment' else words}</mark>" in page
    assert len(rows_read_prepared(3)) == 2
