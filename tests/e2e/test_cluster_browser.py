"""The claim, not the sentence, is the unit of triage, in a real browser on the seed articles:
the "flood the zone" quote is one queue row ("3 outlets", expandable), "check it" on it moves
every appearance, and a reviewer splits a wrong appearance out of the cluster."""

from __future__ import annotations

import pytest

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, ClaimCluster
from tests.e2e.test_browser import ARTIFACTS, page  # noqa: F401 - the Playwright page fixture
from tests.e2e.test_queue_browser import log_in
from tests.reports.test_seed_sample import store_seed_claims

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FLOOD = "flood the zone, especially in sanctuary jurisdictions"


def test_the_flood_the_zone_quote_is_one_row_and_one_claim(page, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    store_seed_claims()
    # As the pipeline stores them: new, nobody's.
    ClaimCluster.objects.update(status=Claim.Status.NEW)
    appearances = list(Claim.objects.filter(sentence__contains=FLOOD).order_by("id"))
    assert len(appearances) == 3 and len({claim.cluster_key for claim in appearances}) == 1

    log_in(page, live_server, reviewer)
    page.goto(f"{live_server.url}/claims/?speaker=Lyons")
    page.wait_for_selector("#claim-list")
    rows = page.locator("#claim-list tr[data-row]", has_text=FLOOD)
    assert rows.count() == 1
    row = rows.first
    summary = row.locator("details.cluster > summary")
    assert summary.inner_text() == "3 outlets"
    assert not row.locator(".appearances").is_visible()
    summary.click()
    # Opening it asks for the appearances (views.queue_row_appearances).
    listed = row.locator(".appearances li:not(.muted)")
    listed.first.wait_for(state="visible")
    assert listed.count() == 3 and row.locator(".appearances li", has_text="(this row)").count() == 1
    assert row.locator(".appearances a").first.get_attribute("href").endswith("?view=speaker%3DLyons")  # type: ignore[union-attr]
    assert {text.split(":")[0] for text in listed.all_inner_texts()} == {"Unknown outlet", "Breitbart News", "MassLive"}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "cluster-queue-row.png"), full_page=True)

    # "Check it" on the one row moves the whole claim.
    row.locator("button[value=check]").click()
    page.wait_for_selector(f"#{row.get_attribute('id')} .status:has-text('Check it')")
    assert {claim.cluster.status for claim in Claim.objects.filter(pk__in=[c.pk for c in appearances])} == {Claim.Status.CHECK}

    # Every appearance's page says so; one of them is split out as not the same claim.
    shown = int((row.get_attribute("id") or "").removeprefix("claim-"))
    other = next(claim for claim in appearances if claim.pk != shown)
    page.goto(f"{live_server.url}/claims/{other.pk}/")
    assert page.locator("#claim-status").inner_text() == "Check it"
    assert page.locator("#appearances tbody tr").count() == 3
    page.screenshot(path=str(ARTIFACTS / "cluster-claim-page.png"), full_page=True)
    wrong = next(claim for claim in appearances if claim.pk not in (shown, other.pk))
    split = page.locator(f"#appearance-{wrong.pk} form.split-form")
    split.locator("input[name=reason]").fill("A different interview")
    split.locator("button[type=submit]").click()
    page.wait_for_selector("#cluster h2:has-text('Appearances (2)')")
    page.screenshot(path=str(ARTIFACTS / "cluster-after-split.png"), full_page=True)

    wrong.refresh_from_db()
    assert wrong.cluster_key != other.cluster_key and wrong.cluster.status == Claim.Status.NEW
    event = AuditEvent.objects.get(object_type="claim", object_id=wrong.pk, verb="claim.split")
    assert (event.actor, event.comment) == (reviewer, "A different interview")
    # Back in the queue the quote is still one row, and the split appearance its own.
    page.goto(f"{live_server.url}/claims/?speaker=Lyons")
    assert page.locator("#claim-list tr[data-row]", has_text=FLOOD).count() == 2
    assert page.locator(f"#claim-{wrong.pk}").count() == 1
