"""Publishing from a fresh install in a real browser (issue 30): no organisation named and no
FACTCHECK_ORG_URL, a reviewer writes a verdict, an editor approves and publishes it (as the
demo organisation, which every staff page says), a reader with no account opens the public
page, and an admin names the organisation, after which the same page carries it.

Personas: reviewer (writes), editor (approves), admin (names the organisation), a reader
who is not logged in.
"""

from __future__ import annotations

import json

import pytest

from factcheck.claims.models import Claim, Verdict
from factcheck.publishing.models import Organisation
from tests.e2e.test_browser import ARTIFACTS
from tests.e2e.test_workflow_browser import browser, log_in, press  # noqa: F401  # the fixture and helpers
from tests.reports.claimreview_validator import assert_valid_claimreview
from tests.workflow.factories import make_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SENTENCE = "Lyons added, “Sanctuary does not mean safer streets."


def test_write_approve_publish_then_read_without_login_and_name_the_organisation(  # type: ignore[no-untyped-def]
    browser, live_server, settings, reviewer, editor, admin_user  # noqa: F811
) -> None:
    settings.FACTCHECK_ORG_URL = ""  # a fresh install: nothing set
    assert not Organisation.objects.exists()
    claim = make_claim(sentence=SENTENCE, speaker="Todd Lyons", speaker_title="Acting ICE Director", attribution="direct_quote")
    ARTIFACTS.mkdir(exist_ok=True)

    page = log_in(browser, live_server, reviewer)
    page.goto(f"{live_server.url}/claims/{claim.pk}/")
    assert page.locator("#demo-organisation").count() == 1
    press(page, "a")
    press(page, "c")
    press(page, "r")
    page.check("input[name=rating][value=misleading]")
    page.fill("#id_headline", "No figure shows that")
    assert page.input_value("#id_claim_reviewed") == "Sanctuary does not mean safer streets."
    page.fill("#id_explanation", "ICE publishes arrest figures by area **months later**.")
    with page.expect_navigation():
        page.click("#verdict-form button[type=submit]")
    assert page.inner_text("#claim-status") == "Verdict drafted"

    desk = log_in(browser, live_server, editor)
    desk.goto(f"{live_server.url}/claims/{claim.pk}/")
    assert "Publishing is not set up" not in desk.content()
    with desk.expect_navigation():
        desk.click("text=Approve and publish")
    assert desk.inner_text("#claim-status") == "Approved"
    claim.refresh_from_db()
    assert claim.cluster.status == Claim.Status.APPROVED and Verdict.objects.get(claim=claim).status == Verdict.Status.APPROVED

    reader = browser.new_context().new_page()
    response = reader.goto(f"{live_server.url}/factchecks/{claim.pk}/")
    assert response is not None and response.status == 200 and "/login/" not in reader.url
    text = reader.inner_text("main")
    assert "Sanctuary does not mean safer streets." in text and "Todd Lyons, Acting ICE Director" in text and "Misleading" in text
    assert reader.locator("#demo-organisation").count() == 1
    assert reviewer.username not in reader.content() and editor.username not in reader.content()
    document = json.loads(reader.locator('script[type="application/ld+json"]').text_content() or "")
    assert_valid_claimreview(document, page_url=reader.url)
    assert document["url"] == reader.url and "demo organisation" in document["author"]["description"]
    reader.screenshot(path=str(ARTIFACTS / "publish-public-page.png"), full_page=True)
    reader.goto(f"{live_server.url}/factchecks/")
    assert "No figure shows that" in reader.inner_text("main")

    admin = log_in(browser, live_server, admin_user)
    admin.goto(f"{live_server.url}/organisation/")
    admin.fill("#id_name", "Boston Desk")
    admin.fill("#id_url", "https://bostondesk.news/")
    with admin.expect_navigation():
        admin.click("main form button[type=submit]")
    assert "Organisation saved" in admin.inner_text("main"), admin.inner_text("main")[:1500]
    assert admin.locator("#demo-organisation").count() == 0
    assert Organisation.objects.get().is_demo is False

    reader.goto(f"{live_server.url}/factchecks/{claim.pk}/")
    assert reader.locator("#demo-organisation").count() == 0
    document = json.loads(reader.locator('script[type="application/ld+json"]').text_content() or "")
    assert document["author"] == {"@type": "Organization", "name": "Boston Desk", "url": "https://bostondesk.news/"}
    assert_valid_claimreview(document, page_url=reader.url)
