"""The reviewer's day in a real browser: triage with the keyboard, draft, editor approves; conflicts."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from factcheck.accounts.roles import Role
from factcheck.accounts.services import user_create_with_role
from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, Verdict
from factcheck.claims.workflow import services
from tests.conftest import PERSONA_PASSWORD
from tests.e2e.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS
from tests.workflow.factories import make_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def log_in(browser, live_server, user, *, width: int = 1280):  # type: ignore[no-untyped-def]
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PERSONA_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/claims/**")
    return page


def press(page, key: str) -> None:  # type: ignore[no-untyped-def]
    """A shortcut that submits a form: wait for the page it loads."""
    with page.expect_navigation():
        page.keyboard.press(key)


def test_triage_by_keyboard_draft_then_editor_approves(browser, live_server, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    ARTIFACTS.mkdir(exist_ok=True)
    page = log_in(browser, live_server, reviewer)
    page.goto(f"{live_server.url}/claims/{claim.pk}/")

    press(page, "a")
    assert page.inner_text("#claim-assignee") == reviewer.username
    press(page, "c")
    assert page.inner_text("#claim-status") == "Check it"
    press(page, "r")
    assert page.inner_text("#claim-status") == "In research"

    page.keyboard.press("2")  # the second rating on the scale: Mostly true
    assert page.is_checked("input[name=rating][value=mostly_true]")
    page.fill("#id_headline", "Roughly right: ICE reported 1,450 detentions")
    page.fill("#id_explanation", "ICE's **May** table lists 1,450.")
    with page.expect_navigation():
        page.click("#verdict-form button[type=submit]")
    assert page.inner_text("#claim-status") == "Verdict drafted"
    page.screenshot(path=str(ARTIFACTS / "workflow-drafted.png"), full_page=True)

    desk = log_in(browser, live_server, editor)
    desk.goto(f"{live_server.url}/claims/{claim.pk}/")
    assert "ICE's May table lists 1,450." in desk.inner_text("#review")
    with desk.expect_navigation():
        desk.click("text=Approve and publish")
    assert desk.inner_text("#claim-status") == "Approved"
    desk.screenshot(path=str(ARTIFACTS / "workflow-approved.png"), full_page=True)

    claim.refresh_from_db()
    verdict = Verdict.objects.get(claim=claim)
    assert (claim.cluster.status, verdict.status, verdict.rating, verdict.author, verdict.approved_by) == (
        "approved", "approved", "mostly_true", reviewer, editor,
    )
    assert list(AuditEvent.objects.filter(object_id=claim.pk, object_type="claim").order_by("id").values_list("verb", flat=True)) == [
        "claim.assign", "claim.check", "claim.research", "verdict.draft", "verdict.approve",
    ]


def test_dismiss_by_keyboard_asks_for_a_reason(browser, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    page = log_in(browser, live_server, reviewer)
    page.goto(f"{live_server.url}/claims/{claim.pk}/")
    page.keyboard.press("d")
    assert page.evaluate("document.activeElement.id") == "dismiss-reason"
    page.keyboard.type("Opinion, nothing to check")
    press(page, "Enter")
    assert page.inner_text("#claim-status") == "Dismissed"
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.dismiss_reason) == ("dismissed", "Opinion, nothing to check")


def test_two_people_at_once_the_second_is_told_what_changed(browser, live_server, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    colleague = user_create_with_role(username="rob-reviewer", role=Role.REVIEWER, password=PERSONA_PASSWORD)[0]
    claim = make_claim()
    mine = log_in(browser, live_server, reviewer)
    theirs = log_in(browser, live_server, colleague)
    mine.goto(f"{live_server.url}/claims/{claim.pk}/")
    theirs.goto(f"{live_server.url}/claims/{claim.pk}/")

    theirs.fill("#dismiss-reason", "Duplicate of an earlier claim")
    with theirs.expect_navigation():
        theirs.click("#dismiss-form button[type=submit]")
    press(mine, "c")  # my page still shows the claim as new
    conflict = mine.inner_text("#conflict")
    assert "Someone else changed this claim" in conflict
    assert "rob-reviewer" in conflict and "Duplicate of an earlier claim" in conflict
    mine.screenshot(path=str(ARTIFACTS / "workflow-conflict-claim.png"), full_page=True)
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.dismiss_reason) == ("dismissed", "Duplicate of an earlier claim")

    # The same verdict edited in two tabs: the second save is refused, both wordings shown.
    researched = make_claim(status="in_research", assignee=reviewer)
    services.verdict_draft(claim=researched, actor=reviewer, rating="false", headline="Wrong", explanation="No.")
    context = mine.context
    tab_one, tab_two = context.new_page(), context.new_page()
    for tab in (tab_one, tab_two):
        tab.goto(f"{live_server.url}/claims/{researched.pk}/")
    tab_one.fill("#id_headline", "Wrong: the figure was 1,100")
    with tab_one.expect_navigation():
        tab_one.click("#verdict-form button[type=submit]")
    tab_two.fill("#id_headline", "Wrong: it was fewer")
    with tab_two.expect_navigation():
        tab_two.click("#verdict-form button[type=submit]")
    conflict = tab_two.inner_text("#conflict")
    assert "Someone else saved this verdict" in conflict
    assert "Wrong: it was fewer" in conflict and "Wrong: the figure was 1,100" in conflict
    tab_two.screenshot(path=str(ARTIFACTS / "workflow-conflict-verdict.png"), full_page=True)
    assert Verdict.objects.get(claim=researched).headline == "Wrong: the figure was 1,100"
    # Having seen both, sending mine again is a deliberate overwrite and goes through.
    with tab_two.expect_navigation():
        tab_two.click("#verdict-form button[type=submit]")
    assert Verdict.objects.get(claim=researched).headline == "Wrong: it was fewer"
    assert Claim.objects.get(pk=researched.pk).cluster.status == "drafted"


def test_claim_page_at_phone_width(browser, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    page = log_in(browser, live_server, reviewer, width=375)
    page.goto(f"{live_server.url}/claims/{claim.pk}/")
    # One column, nothing wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert page.is_visible("#workflow")
    page.screenshot(path=str(ARTIFACTS / "claim-phone.png"), full_page=True)
