"""A walk down the queue's order under the article filters and the cluster's state passes over
the claims it discards from the order's index alone (claim_queue_order_idx carries each
claim's article and cluster): on 1,000,000 claims, a category and a status read 5,865 claims
for a page of 51, and reading each of their rows was half the statement.

Persona: reviewer.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from tests.web.test_queue import logged_in, make_article, make_claim, shown_ids
from tests.web.test_serial_plans import is_walk

# Real transactions: VACUUM, which marks the pages all-visible that an index-only scan relies
# on, cannot run inside a test's transaction.
pytestmark = pytest.mark.django_db(transaction=True)


class Walks:
    """The walks a request runs (is_walk), with their parameters."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if is_walk(sql):
            self.seen.append((sql, params))
        return execute(sql, params, many, context)


def plan(sql: str, params: Any) -> str:
    """The walk's plan, on this small table planned as on a large one: a seq scan and a sort
    are what PostgreSQL rightly prefers for a few hundred rows."""
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        cursor.execute("SET enable_sort = off")
        cursor.execute("SET enable_bitmapscan = off")
        try:
            cursor.execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + sql, params)
            return "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("RESET enable_seqscan")
            cursor.execute("RESET enable_sort")
            cursor.execute("RESET enable_bitmapscan")


def test_a_walk_under_article_and_cluster_filters_reads_no_claim_row_it_passes_over(reviewer) -> None:  # type: ignore[no-untyped-def]
    tech = [make_article(metadata={"category": "tech"}) for _ in range(3)]
    sport = [make_article(metadata={"category": "sport"}) for _ in range(3)]
    wanted = []
    for n in range(120):
        article = (tech if n % 2 else sport)[n % 3]
        claim = make_claim(article, priority=float(200 - n), status="check" if n % 3 == 0 else "new")
        if article in tech and n % 3 == 0:
            wanted.append(claim.pk)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) claims")
    client = logged_in(reviewer)
    walks = Walks()
    with connection.execute_wrapper(walks):
        html = client.get("/claims/?meta=category%3Atech&status=check").content.decode()
    assert shown_ids(html) == wanted
    (sql, params), = walks.seen
    explained = plan(sql, params)
    assert "Index Only Scan using claim_queue_order_idx on claims" in explained, explained
    assert "Heap Fetches: 0" in explained, explained
