"""The library in a real browser (issue 28 item 4): a reviewer opens a claim the matcher
found nothing for, searches the library from it, narrows the search by publisher, opens a
fact-check, attaches it to the claim, and sees the claim "Checked before (confirmed)" in the
queue; the fact-check's page then lists the claim with the reviewer's decision.

Persona: reviewer (reads the library, attaches matches)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim
from factcheck.factchecks.models import ClaimMatch, FactCheck
from tests.e2e.test_browser import ARTIFACTS, page  # noqa: F401 - the Playwright page fixture
from tests.e2e.test_match_browser import click, log_in
from tests.reports.helpers import claim_in_article

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_reviewer_finds_a_missed_fact_check_in_the_library_and_attaches_it(page, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    claim = claim_in_article(
        sentence="Immigration agents arrested almost 1,500 people across Massachusetts in May.", status=Claim.Status.NEW,
        published_at=datetime(2025, 6, 10, 9, tzinfo=UTC),
    )
    politifact = FactCheck.objects.create(
        claim="ICE detained nearly 1,500 people in Massachusetts in May.", publisher="PolitiFact", external_id="p-ice", rating_text="mostly-true",
        published_on=date(2025, 6, 3),
    )
    FactCheck.objects.create(claim="Massachusetts has the best schools in the country.", publisher="Snopes", external_id="s-mass", rating_text="Mixture")

    log_in(page, live_server, reviewer)
    page.goto(f"{live_server.url}/claims/{claim.pk}/")
    assert "No earlier fact-check matches this claim." in page.inner_text("#matches")
    assert page.is_visible("nav a:has-text('Library')")
    page.fill("#library-search-for-claim input[name=q]", "Massachusetts")
    click(page, "#library-search-for-claim button[type=submit]")
    assert f"Searching for claim #{claim.pk}" in page.inner_text("#attach-for")
    rows = page.inner_text("#library-results")
    assert "ICE detained nearly 1,500" in rows and "best schools" in rows

    page.select_option("#library-search select[name=publisher]", "PolitiFact")
    click(page, "#library-search button[type=submit]")
    rows = page.inner_text("#library-results")
    assert "ICE detained nearly 1,500" in rows and "best schools" not in rows
    page.screenshot(path=str(ARTIFACTS / "library-search.png"), full_page=True)

    click(page, f"#factcheck-{politifact.pk} button:has-text('Attach to claim #{claim.pk}')")
    assert page.url.endswith(f"/claims/{claim.pk}/#matches")
    matches = page.inner_text("#matches")
    assert "PolitiFact" in matches and f"Confirmed by {reviewer.username}" in matches and "by hand" in matches
    assert "before the article" in matches
    assert "mark the claim “check it” first" in matches  # why a verdict cannot start from it yet
    match = ClaimMatch.objects.get(claim=claim)
    assert (match.status, match.origin, match.decided_by) == ("confirmed", "manual", reviewer)
    assert AuditEvent.objects.filter(verb="claim_match.attach", object_id=claim.pk, actor=reviewer).count() == 1

    page.goto(f"{live_server.url}/claims/")
    assert "Checked before (confirmed): PolitiFact, mostly-true, 3 Jun 2025" in page.inner_text(f"#claim-{claim.pk} .checked-before")
    page.goto(f"{live_server.url}/library/{politifact.pk}/")
    claims = page.inner_text("#matched-claims")
    assert "Immigration agents arrested almost 1,500" in claims and f"Confirmed by {reviewer.username}" in claims
