"""The queue's one row per cluster walks exactly: every page, after every cursor, with filters
and a search, shows each cluster once, as its best-ranked matching appearance, in queue order."""

from __future__ import annotations

from typing import Any

import pytest

from factcheck.claims.models import Claim
from tests.web.test_queue import crossing, order_by_total, walk  # noqa: F401 - the crossing fixture

pytestmark = pytest.mark.django_db


def first_of_each_cluster(claims: list[Claim]) -> list[Claim]:
    """The best appearance in standing order (priority, then id) of each cluster among `claims`."""
    best: dict[str, Claim] = {}
    for claim in claims:
        key = claim.cluster_key or f"claim:{claim.pk}"
        if key not in best or (claim.priority, claim.pk) > (best[key].priority, best[key].pk):
            best[key] = claim
    return list(best.values())


def test_one_row_per_cluster_walks_exactly_with_filters_and_a_search(reviewer, crossing: list[Claim]) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    # Clusters of one to four appearances across the standing and recency orders; a few alone.
    for n, claim in enumerate(crossing):
        claim.cluster_key = "" if n % 11 == 0 else f"{n % 9:040x}"
        claim.save(update_fields=["cluster_key"])
    cases: list[tuple[dict[str, Any], list[Claim]]] = [
        ({}, crossing),
        ({"type": ["numeric"]}, [c for c in crossing if c.claim_type == "numeric"]),
        ({"q": "flood"}, [c for c in crossing if "flood" in c.sentence or "flooded" in c.article.text]),
        ({"q": "flood", "type": ["quote"]}, [c for c in crossing if c.claim_type == "quote" and ("flood" in c.sentence or "flooded" in c.article.text)]),
    ]
    for values, matching in cases:
        expected = order_by_total(first_of_each_cluster(matching))
        assert len(expected) < len(matching)  # the premise: some clusters have several matching appearances
        for size in (1, 2, 3, 5, 8, 50):
            assert walk(reviewer, values, size) == expected, (values, size)
