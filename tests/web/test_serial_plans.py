"""Walks down the queue's order are planned without parallel workers (factcheck/postgres/base.py,
serial_plans): a page reads a few hundred index entries, and two workers started for it cost
more than the walk and take cores from the other requests. Counts keep the server's plans.

Persona: reviewer.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from factcheck.postgres.base import serial_plans
from tests.web.test_queue import logged_in, make_article, make_claim, shown_ids

# Real transactions: SET LOCAL inside a test's own transaction would outlive the walk and hide
# a walk that ran without it.
pytestmark = pytest.mark.django_db(transaction=True)


def parallel_workers() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_parallel_workers_per_gather")
        return cursor.fetchone()[0]


def test_serial_plans_turns_parallel_workers_off_until_its_end() -> None:
    server = parallel_workers()
    assert server != "0"  # PostgreSQL's default is 2: otherwise this test proves nothing
    with serial_plans():
        assert parallel_workers() == "0"
    assert parallel_workers() == server


def is_walk(sql: str) -> bool:
    """A page's walk down the queue's order: a statement reading claims in queue order with a
    LIMIT (a count has neither)."""
    return 'FROM "claims"' in sql and '"queue_rank" DESC' in sql and "LIMIT" in sql


class WalkSettings:
    """The parallel-workers setting each walk down the queue's order ran under: a statement
    reading claims in queue order with a LIMIT (a page's walk; a count has neither)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.inside = False

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not self.inside and is_walk(sql):
            self.inside = True
            try:
                self.seen.append(parallel_workers())
            finally:
                self.inside = False
        return execute(sql, params, many, context)


def test_every_walk_of_the_queue_and_the_api_runs_without_parallel_workers(reviewer) -> None:  # type: ignore[no-untyped-def]
    article = make_article(title="Council budget", text="The council met on Monday.")
    claims = [make_claim(article, sentence=f"Unemployment rose to {n} per cent, the council said.", priority=90 - n) for n in range(3)]
    client = logged_in(reviewer)
    walks = WalkSettings()
    with connection.execute_wrapper(walks):
        for query in ("", "?status=new", "?q=unemployment", "?q=monday&in_article=yes"):
            assert shown_ids(client.get("/claims/" + query).content.decode()) == [claim.pk for claim in claims], query
        for query in ("", "?q=unemployment"):
            response = client.get("/api/v1/claims/" + query)
            assert [row["id"] for row in response.json()["results"]] == [claim.pk for claim in claims], query
    assert len(walks.seen) >= 6 and set(walks.seen) == {"0"}, walks.seen
    # Outside the walks, the server's own setting.
    assert parallel_workers() != "0"
