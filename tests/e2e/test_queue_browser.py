"""Triage with the keyboard in a real browser: j, a, c, d + reason, then x and ?."""

from __future__ import annotations

import pytest

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, ClaimCluster
from tests.conftest import PERSONA_PASSWORD
from tests.e2e.test_browser import ARTIFACTS, page  # noqa: F401 - the Playwright page fixture
from tests.web.test_queue import make_article, make_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page, live_server, user) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    page.goto(f"{live_server.url}/claims/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PERSONA_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#claim-list")


def test_reviewer_triages_a_claim_with_the_keyboard(page, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    article = make_article(outlet="MassLive", title="Boston's sanctuary policy")
    top = make_claim(
        article, sentence="ICE detained nearly 1,500 people in Boston in May.", claim_type="numeric", speaker="Todd Lyons",
        speaker_title="Acting ICE Director", priority=82.4, cluster_key="k" * 40,
        quantities=[{"text": "nearly 1,500 people", "value": 1500, "unit": "people", "hedge": "approximately-below"}],
        priority_parts={"checkworthiness": 41.2, "type": 15, "spread": 10.0, "recency": 16.2, "outlets": 3},
    )
    ClaimCluster.objects.update_or_create(cluster_key="k" * 40, defaults=dict(size=3, outlet_count=3))
    second = make_claim(article, sentence="Crime in the city rose 12 percent last year.", claim_type="comparison", priority=60.0)
    make_claim(article, sentence="The policy has made the city less safe.", claim_type="causal", priority=40.0)
    log_in(page, live_server, reviewer)
    row = page.locator(f"#claim-{top.pk}")

    page.keyboard.press("j")
    assert "is-current" in (row.get_attribute("class") or "")
    page.keyboard.press("a")
    page.wait_for_selector(f"#claim-{top.pk}.is-current .assignee:has-text('@{reviewer.username}')")
    page.keyboard.press("c")
    page.wait_for_selector(f"#claim-{top.pk}.is-current .status:has-text('Check it')")
    page.keyboard.press("d")
    reason = page.locator(f"#claim-{top.pk} input[name=reason]")
    reason.wait_for(state="visible")
    assert reason.evaluate("el => el === document.activeElement")
    page.keyboard.type("Already checked last week")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#claim-{top.pk}.is-current .status:has-text('Dismissed')")

    top.refresh_from_db()
    assert (top.cluster.status, top.cluster.assignee, top.cluster.dismiss_reason) == ("dismissed", reviewer, "Already checked last week")
    assert AuditEvent.objects.filter(object_type="claim", object_id=top.pk, actor=reviewer).count() == 3

    # The row stays current after its swaps; j moves on, x selects, ? shows the keys.
    page.keyboard.press("j")
    assert "is-current" in (page.locator(f"#claim-{second.pk}").get_attribute("class") or "")
    page.keyboard.press("x")
    assert page.locator(f"#select-{second.pk}").is_checked()
    assert page.locator("[data-selected-count]").first.inner_text() == "1"
    page.keyboard.press("?")
    assert page.locator("#key-help").is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "queue-keyboard.png"), full_page=True)
    page.keyboard.press("Escape")
    assert not page.locator("#key-help").is_visible()
    page.keyboard.press("/")
    assert page.locator("#id_q").evaluate("el => el === document.activeElement")

    # Enter opens the current claim, in the view it was listed in (here the whole queue).
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    page.wait_for_selector("#claim-highlight")
    assert page.url.endswith(f"/claims/{second.pk}/?view=")
    assert Claim.objects.get(pk=second.pk).cluster.status == "new"


def test_queue_layout_at_phone_width_and_filters_in_the_url(page, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    article = make_article(outlet="Boston Herald")
    numeric = make_claim(article, sentence="The city spent $2 million on shelters.", claim_type="numeric", priority=70.0)
    make_claim(article, sentence="The mayor will veto the plan.", claim_type="prediction", priority=50.0)
    log_in(page, live_server, reviewer)
    page.set_viewport_size({"width": 375, "height": 800})
    page.fill("#id_q", "shelters")
    # Arrow functions, not bare expressions: Playwright evals a bare expression inside the page,
    # which the Content-Security-Policy (no 'unsafe-eval') refuses.
    page.wait_for_function("() => location.search === '?q=shelters'")  # pushed, without the empty fields
    page.wait_for_function("() => document.querySelectorAll('#claim-list tr[data-row]').length === 1")
    assert page.locator(f"#claim-{numeric.pk}").is_visible()
    # Nothing runs off the side of a phone screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "queue-375.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/claims/")
    page.screenshot(path=str(ARTIFACTS / "queue-1280.png"), full_page=True)
