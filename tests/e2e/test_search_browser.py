"""Search and counts in a real browser: "flood the zone" over the three seed articles, the
whole-article option, My claims and the editor's approval inbox, with screenshots."""

from __future__ import annotations

import re

import pytest

from factcheck.claims.workflow import services
from tests.e2e.test_browser import ARTIFACTS, page  # noqa: F401 - the Playwright page fixture
from tests.e2e.test_queue_browser import log_in
from tests.web.test_search_and_counts import FLOOD, seeded  # noqa: F401 - the seed articles' claims (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def result_count(page) -> int:  # type: ignore[no-untyped-def]  # noqa: F811
    """The "N claims" line, once the page has asked for it."""
    page.wait_for_selector("[data-result-count]")
    return int(page.locator("[data-result-count]").get_attribute("data-result-count"))


def test_search_puts_the_claims_that_say_it_first_and_counts_them(page, live_server, reviewer, seeded) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    flood_ids = {claim.pk for claim in seeded["flood"]}
    everything = len(flood_ids) + len(seeded["others"])
    log_in(page, live_server, reviewer)
    assert result_count(page) == everything  # the unfiltered queue says how many

    page.fill("#id_q", FLOOD)
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'flood the zone'")
    page.wait_for_function(f"() => document.querySelectorAll('#claim-list tr[data-row]').length === {len(flood_ids)}")
    rows = page.locator("#claim-list tr[data-row]")
    shown = {int(re.sub(r"\D", "", rows.nth(n).get_attribute("id") or "")) for n in range(rows.count())}
    assert shown == flood_ids
    assert result_count(page) == len(flood_ids)
    assert page.locator("#claim-list mark", has_text="flood").count() >= len(flood_ids)
    assert f"{len(flood_ids)} claims matching “{FLOOD}” in the claim’s text" in page.locator(".result-count").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "search-flood-the-zone.png"), full_page=True)
    # A full-page screenshot leaves an empty style attribute on the rows' checkboxes, which
    # htmx's next swap copies over and the Content-Security-Policy refuses: start afresh.
    page.reload()

    # In the whole article: the same claims first, then the articles' other claims, marked.
    page.check("input[name=in_article]")
    page.wait_for_function("() => new URLSearchParams(location.search).get('in_article') === 'yes'")
    page.wait_for_function(f"() => document.querySelector('[data-result-count]')?.dataset.resultCount === '{everything}'")
    first = [int(re.sub(r"\D", "", rows.nth(n).get_attribute("id") or "")) for n in range(len(flood_ids))]
    assert set(first) == flood_ids
    assert page.locator("#claim-list .found-in-article").count() == rows.count() - len(flood_ids)
    page.screenshot(path=str(ARTIFACTS / "search-in-the-whole-article.png"), full_page=True)
    page.reload()

    # A quoted phrase: the same claims (the words are never apart in these articles' claims
    # that mention both), and no more.
    page.uncheck("input[name=in_article]")
    page.fill("#id_q", f'"{FLOOD}"')
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === '\"flood the zone\"'")
    page.wait_for_function(f"() => document.querySelector('[data-result-count]')?.dataset.resultCount === '{len(flood_ids)}'")


def test_my_claims_and_the_approval_inbox(page, live_server, reviewer, editor) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from tests.web.test_queue import make_claim

    mine = [make_claim(sentence=f"Rents rose {n} percent.", assignee=reviewer, status="check", priority=50.0 - n) for n in range(3)]
    make_claim(sentence="Someone else's claim.", assignee=editor, status="check")
    verdict = services.verdict_draft(claim=mine[0], actor=reviewer, rating="false", headline="Rents fell.", explanation="Data.", evidence_ids=[])
    own = make_claim(sentence="The editor's own claim.", status="check")
    services.verdict_draft(claim=own, actor=editor, rating="true", headline="Right.", explanation="Data.", evidence_ids=[])

    log_in(page, live_server, reviewer)
    assert page.locator("[data-my-claims-left]").inner_text() == "2 left"  # the drafted one is done
    assert page.locator("[data-awaiting-approval]").count() == 0
    page.click("a.nav-count-link:has-text('My claims')")
    page.wait_for_selector("h1:has-text('My claims')")
    assert result_count(page) == 2
    page.screenshot(path=str(ARTIFACTS / "my-claims.png"), full_page=True)
    page.reload()  # (the screenshot's empty style attributes, as above)
    # Dismissing one from the row: one left.
    page.locator(f"#claim-{mine[1].pk} summary:has-text('Dismiss')").click()
    page.fill(f"#claim-{mine[1].pk} input[name=reason]", "Opinion, not checkable")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#claim-{mine[1].pk} .status:has-text('Dismissed')")
    page.reload()
    assert page.locator("[data-my-claims-left]").inner_text() == "1 left"
    assert result_count(page) == 1
    page.click("button:has-text('Log out')")

    log_in(page, live_server, editor)
    assert page.locator("[data-awaiting-approval]").inner_text() == "1"
    page.click("a.nav-count-link:has-text('Awaiting my approval')")
    page.wait_for_selector("#approval-list")
    assert page.locator("#approval-list tr[id^=verdict-]").count() == 1
    assert page.locator(f"#verdict-{verdict.pk}").is_visible()  # the reviewer's draft, not the editor's own
    page.screenshot(path=str(ARTIFACTS / "awaiting-my-approval.png"), full_page=True)
    page.click(f"#verdict-{verdict.pk} a.sentence")
    page.wait_for_url(re.compile(rf"/claims/{mine[0].pk}/"))
