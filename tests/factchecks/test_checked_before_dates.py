"""Issue 28 item 3: "before" means before. A fact-check is "Checked before" only when it was
published before the claim's article (factchecks.selectors.checked_when, checked_before_q);
when either date is unknown the pages say so rather than "before"."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django.urls import reverse

from factcheck.factchecks.models import ClaimMatch, FactCheck
from factcheck.factchecks.selectors import When, checked_when, claims_checked_before
from tests.web.test_queue import logged_in, make_article, make_claim, shown_ids

pytestmark = pytest.mark.django_db

MAY_1 = datetime(2024, 5, 1, 23, 30, tzinfo=UTC)


def check(name: str, published_on: date | None) -> FactCheck:
    return FactCheck.objects.create(claim=f"{name} checked this.", publisher=name, external_id=name, published_on=published_on, rating_text="False")


def test_checked_when_reads_both_dates() -> None:
    assert checked_when(checked_on=date(2024, 4, 30), claim_published_at=MAY_1) == When.BEFORE
    assert checked_when(checked_on=date(2024, 5, 1), claim_published_at=MAY_1) == When.SAME_DAY
    assert checked_when(checked_on=date(2024, 5, 2), claim_published_at=MAY_1) == When.AFTER
    # The article's day is its UTC day (as the matcher dates it): 23:30 on 1 May in London is 22:30 UTC.
    assert checked_when(checked_on=date(2024, 5, 1), claim_published_at=datetime(2024, 5, 2, 0, 30, tzinfo=UTC)) == When.BEFORE
    assert checked_when(checked_on=None, claim_published_at=MAY_1) == When.UNKNOWN
    assert checked_when(checked_on=date(2024, 4, 30), claim_published_at=None) == When.UNKNOWN


def test_a_fact_check_dated_after_the_article_is_never_before(reviewer) -> None:  # type: ignore[no-untyped-def]
    dated = make_article(published_at=MAY_1)
    later_only, earlier_too, undated = make_claim(dated, priority=90.0), make_claim(dated, priority=80.0), make_claim(make_article(), priority=70.0)
    later, earlier = check("Later", date(2024, 6, 1)), check("Earlier", date(2024, 4, 1))
    # The better-ranked suggestion, and even a confirmed match, dated after the article: not "before".
    ClaimMatch.objects.create(claim=later_only, factcheck=later, score=0.99, rank=1, status=ClaimMatch.Status.CONFIRMED)
    ClaimMatch.objects.create(claim=earlier_too, factcheck=later, score=0.99, rank=1)
    ClaimMatch.objects.create(claim=earlier_too, factcheck=earlier, score=0.8, rank=2)
    ClaimMatch.objects.create(claim=undated, factcheck=earlier, score=0.8, rank=1)

    found = claims_checked_before([later_only.pk, earlier_too.pk, undated.pk])
    assert set(found) == {earlier_too.pk, undated.pk}
    assert (found[earlier_too.pk].publisher, found[earlier_too.pk].when) == ("Earlier", When.BEFORE)
    assert found[undated.pk].when == When.UNKNOWN

    client = logged_in(reviewer)
    html = client.get(reverse("claims:list")).content.decode()
    row = html[html.index(f'id="claim-{earlier_too.pk}"') : html.index(f'id="claim-{undated.pk}"')]
    assert "Checked before: Earlier, False, 1 Apr 2024</div>" in row and "Later" not in row
    assert "Checked before: Earlier, False, 1 Apr 2024, date unknown: maybe not before" in html[html.index(f'id="claim-{undated.pk}"') :]
    first = html[html.index(f'id="claim-{later_only.pk}"') : html.index(f'id="claim-{earlier_too.pk}"')]
    assert "Checked before" not in first
    assert shown_ids(client.get(reverse("claims:list"), {"checked_before": "yes"}).content.decode()) == [earlier_too.pk, undated.pk]
    assert shown_ids(client.get(reverse("claims:list"), {"checked_before": "no"}).content.decode()) == [later_only.pk]

    page = client.get(reverse("claims:detail", args=[later_only.pk])).content.decode()
    assert "after the article: not “before”" in page
    page = client.get(reverse("claims:detail", args=[undated.pk])).content.decode()
    assert "article undated: maybe not before" in page
