"""The queue's one row per cluster walks exactly: every page, after every cursor, with filters
and a search, shows each cluster once, as its best-ranked matching appearance, in queue order."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse

from factcheck.claims.models import Claim, ClaimCluster
from factcheck.claims.queue import selectors
from factcheck.claims.queue.filters import MY_CLAIMS_VALUES
from tests.web.test_queue import (  # noqa: F401 - the crossing and order_day fixtures
    NEWEST,
    crossing,
    logged_in,
    make_article,
    make_claim,
    order_by_total,
    order_day,
    shown_ids,
    walk,
)
from tests.web.test_search_and_counts import count_text
from tests.workflow.factories import join_cluster

pytestmark = pytest.mark.django_db


def first_of_each_cluster(claims: list[Claim]) -> list[Claim]:
    """The best appearance in queue order of each cluster among `claims`."""
    best: dict[str, Claim] = {}
    position = {pk: n for n, pk in enumerate(order_by_total(claims))}
    for claim in claims:
        key = claim.cluster_key
        if key not in best or position[claim.pk] < position[best[key].pk]:
            best[key] = claim
    return list(best.values())


def one_row_per_cluster(groups: list[list[Claim]]) -> list[int]:
    """A search's rows: each cluster once, in the first group holding one of its appearances,
    as its best appearance there; each group in queue order."""
    rows: list[int] = []
    listed: set[str] = set()
    for group in groups:
        left = [claim for claim in group if claim.cluster_key not in listed]
        rows += order_by_total(first_of_each_cluster(left))
        listed |= {claim.cluster_key for claim in group}
    return rows


def test_one_row_per_cluster_walks_exactly_with_filters_and_a_search(reviewer, crossing: list[Claim]) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    # Clusters of one to four appearances across the standing and recency orders; a few alone
    # (a cluster of one under its own key).
    for n, claim in enumerate(crossing):
        claim.cluster_key = claim.claim_key if n % 11 == 0 else f"k{n % 9:039x}"
        join_cluster([claim], claim.cluster_key)
    def says_flood(claim: Claim) -> bool:
        return "flood" in claim.sentence

    def in_flood_article(claim: Claim) -> bool:
        return "flood" not in claim.sentence and "flooded" in claim.article.text

    # Each case: the filters, then the search's groups in the order the queue lists them (a
    # search lists the claims that say the words before those found through their article).
    cases: list[tuple[dict[str, Any], list[list[Claim]]]] = [
        ({}, [crossing]),
        ({"type": ["numeric"]}, [[c for c in crossing if c.claim_type == "numeric"]]),
        ({"q": "flood"}, [[c for c in crossing if says_flood(c)]]),
        ({"q": "flood", "in_article": "yes"}, [[c for c in crossing if says_flood(c)], [c for c in crossing if in_flood_article(c)]]),
        (
            {"q": "flood", "type": ["quote"], "in_article": "yes"},
            [[c for c in crossing if c.claim_type == "quote" and says_flood(c)], [c for c in crossing if c.claim_type == "quote" and in_flood_article(c)]],
        ),
    ]
    for values, groups in cases:
        expected = one_row_per_cluster(groups)
        assert len(expected) < sum(len(group) for group in groups)  # the premise: some clusters have several matching appearances
        for size in (1, 2, 3, 5, 8, 50):
            assert walk(reviewer, values, size) == expected, (values, size)
    for values, groups in cases:
        # The count is of the rows the queue lists: clusters, not appearances.
        assert selectors.queue_count(user=reviewer, values=values) == len(one_row_per_cluster(groups)), values


def test_a_search_lists_a_cluster_once_in_its_first_group_highlighted_and_counted(reviewer, settings) -> None:  # type: ignore[no-untyped-def]
    about_floods = make_article(text="Rivers flooded the valley overnight.")
    # One cluster: its best-ranked appearance is found only through its article, another says
    # "flood" itself: the cluster is a row of the claims that say it, shown as that appearance.
    through_article = make_claim(about_floods, priority=60.0, sentence="Taxes rose again.", cluster_key="c" * 40)
    says_it = make_claim(priority=40.0, sentence="The flood cost millions.", cluster_key="c" * 40)
    alone = make_claim(priority=50.0, sentence="The flood was a hoax.")
    other_in_article = make_claim(about_floods, priority=55.0, sentence="Rents fell.")
    in_article = {"q": "flood", "in_article": "yes"}
    for size in (1, 2, 3, 10):
        assert walk(reviewer, in_article, size) == [alone.pk, says_it.pk, other_in_article.pk], size
        assert walk(reviewer, {"q": "flood"}, size) == [alone.pk, says_it.pk], size
    assert through_article.pk not in walk(reviewer, in_article, 10)
    client = logged_in(reviewer)
    assert "<strong>3</strong> claims" in count_text(client, in_article)
    assert "<strong>2</strong> claims" in count_text(client, {"q": "flood"})
    # The cluster's row carries its own highlight, and is not marked as found in the article.
    html = client.get(reverse("claims:list"), in_article).content.decode()
    row = html[html.index(f'id="claim-{says_it.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "<mark>flood</mark>" in row and "found in the article" not in row
    assert shown_ids(html) == [alone.pk, says_it.pk, other_in_article.pk]


def test_a_phrase_search_lists_each_cluster_in_its_first_group(reviewer) -> None:  # type: ignore[no-untyped-def]
    """Words that differ as a phrase: the claims with the words in order, then the others, then
    those found through their article: the same rows, one per cluster, in the same order, page
    by page. A quoted phrase has one group of its own text."""
    import random

    rng = random.Random(11)
    about_floods = make_article(text="The flood cost the valley dearly.")
    sentences = ["The flood cost {n} million.", "The cost of flood {n} defences rose.", "Taxes rose {n} percent.", "Flood and storm cost {n}."]
    claims = []
    for n in range(48):
        claims.append(make_claim(
            about_floods if n % 6 == 2 else None, priority=rng.choice([30.0, 40.0, 45.0, 50.0]), sentence=sentences[n % 4].format(n=n),
            seen_at=NEWEST - timedelta(days=rng.choice([0, 3, 7, 20])), claim_type="numeric" if n % 3 else "quote",
            **({} if n % 7 == 0 else {"cluster_key": f"k{n % 9:039x}"}),  # alone: its own cluster
        ))
    # Recency lifts a claim of a lower standing priority above others (45 + 10 against 50 + 2.7 to 4.5).
    claims.append(make_claim(priority=45.0, sentence="Flood and storm cost 1000.", seen_at=NEWEST, claim_type="numeric"))
    for days in (8, 9, 10, 11, 12, 13, 60):
        claims.append(make_claim(priority=50.0, sentence=f"Flood and storm cost {1000 + days}.", seen_at=NEWEST - timedelta(days=days), claim_type="numeric"))

    def in_order(claim: Claim) -> bool:
        return claim.sentence.startswith("The flood cost")

    def says_both(claim: Claim) -> bool:
        return "lood" in claim.sentence and "cost" in claim.sentence

    cases: list[tuple[dict[str, Any], list[list[Claim]]]] = [
        ({"q": "flood cost"}, [[c for c in claims if in_order(c)], [c for c in claims if says_both(c) and not in_order(c)]]),
        ({"q": "flood cost", "type": ["numeric"]}, [[c for c in claims if c.claim_type == "numeric" and in_order(c)],
                                                    [c for c in claims if c.claim_type == "numeric" and says_both(c) and not in_order(c)]]),
        ({"q": "flood cost", "in_article": "yes"}, [[c for c in claims if in_order(c)], [c for c in claims if says_both(c) and not in_order(c)],
                                                    [c for c in claims if c.article_id == about_floods.pk and not says_both(c)]]),
        ({"q": '"flood cost"'}, [[c for c in claims if in_order(c)]]),
        ({"q": '"flood cost"', "type": ["numeric"]}, [[c for c in claims if c.claim_type == "numeric" and in_order(c)]]),
        ({"q": '"flood cost"', "in_article": "yes"}, [[c for c in claims if in_order(c)],
                                                      [c for c in claims if c.article_id == about_floods.pk and not in_order(c)]]),
    ]
    for values, groups in cases:
        expected = one_row_per_cluster(groups)
        assert all(groups) and len(expected) < sum(len(group) for group in groups), values  # the premise: clusters across the groups
        for size in (1, 2, 3, 7, 50):
            assert walk(reviewer, values, size) == expected, (values, size)


def test_my_claims_left_counts_a_cluster_once(reviewer) -> None:  # type: ignore[no-untyped-def]
    # The assignee is the cluster's: the three appearances are one claim left, as the view lists it.
    for priority in (30.0, 40.0, 50.0):
        make_claim(priority=priority, status="check", assignee=reviewer, cluster_key="d" * 40)
    make_claim(status="check", assignee=reviewer)
    assert selectors.work_counts(user=reviewer).my_claims_left == 2
    assert selectors.queue_count(user=reviewer, values=MY_CLAIMS_VALUES) == 2
    assert len(walk(reviewer, MY_CLAIMS_VALUES, 10)) == 2


def test_a_row_opens_to_its_clusters_appearances_best_ranked_first(reviewer, outsider, client) -> None:  # type: ignore[no-untyped-def]
    """"N outlets" is filled in when opened (views.queue_row_appearances): the first eight
    appearances in queue order, the row's own marked, each linking to its claim page in the
    row's view, and "and N more" to the claim page's full list."""
    key = "e" * 40
    cluster = [make_claim(make_article(outlet=f"Outlet {n}"), priority=float(10 + n), cluster_key=key) for n in range(10)]
    ClaimCluster.objects.update_or_create(cluster_key=key, defaults=dict(size=10, outlet_count=10))
    best, row = cluster[-1], cluster[4]
    reviewers = logged_in(reviewer)
    view = f"outlet={row.article.outlet_id}"
    page = reviewers.get(reverse("claims:list") + "?" + view).content.decode()
    url = reverse("claims:row_appearances", args=[row.pk])
    assert shown_ids(page) == [row.pk] and f'hx-get="{url}?view=outlet%3D{row.article.outlet_id}"' in page
    assert "Loading the appearances" in page and "(this row)" not in page  # the list is not on the page until it is opened

    html = reviewers.get(url, {"view": view}).content.decode()
    items = re.findall(r"<li>(.*?)</li>", html)
    assert [re.search(r"Outlet \d", item).group(0) for item in items[:8]] == [f"Outlet {n}" for n in range(9, 1, -1)]  # type: ignore[union-attr]
    assert f'href="/claims/{best.pk}/?view=outlet%3D{row.article.outlet_id}"' in items[0]
    assert "(this row)" in items[5] and "<a " not in items[5]
    assert items[8] == f'<a href="/claims/{row.pk}/?view=outlet%3D{row.article.outlet_id}#cluster">and 2 more</a>'

    # A claim alone is a cluster of one: its only appearance is the row itself.
    alone = make_claim()
    html = reviewers.get(reverse("claims:row_appearances", args=[alone.pk])).content.decode()
    assert len(re.findall(r"<li>", html)) == 1 and "(this row)" in html and "more</a>" not in html
    assert reviewers.get(reverse("claims:row_appearances", args=[alone.pk + 1000])).status_code == 404
    assert logged_in(outsider).get(url).status_code == 403
    assert client.get(url).status_code == 302  # to the login page
    assert reviewers.post(url).status_code == 405
