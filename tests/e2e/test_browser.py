"""A real browser (Playwright driving Debian's Chromium) against a live server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim
from tests.conftest import PERSONA_PASSWORD, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture
def page() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is not installed; `make test` installs it (apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls in the test
    # body are still synchronous and safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    # Anything the Content-Security-Policy refuses (an inline script or style that crept in)
    # fails the test that met it: the browser reports each refusal on the console.
    refused: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        new_page = context.new_page()
        new_page.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None)
        yield new_page
        context.close()
        browser.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    assert refused == [], f"the Content-Security-Policy refused: {refused}"


def test_reviewer_logs_in_opens_claim_list_and_sees_highlight(page, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]
    text = "Officials met on Monday.\n\nICE detained nearly 1,500 people in May. Nobody disputed it."
    article, _ = article_ingest(data=ArticleInput(text=text, outlet="MassLive"), batch=None)
    start = text.index("ICE detained")
    end = text.index("May.") + len("May.")
    claim = Claim.objects.create(
        article=article, claim_key="k" * 40, sentence=text[start:end], start_offset=start, end_offset=end, score=0.9, claim_type="numeric"
    )

    page.goto(f"{live_server.url}/claims/")
    assert "/login/" in page.url
    page.fill("#id_username", reviewer.username)
    page.fill("#id_password", PERSONA_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#claim-list")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "claim-list.png"), full_page=True)

    page.click(f"text={claim.sentence}")
    page.wait_for_selector("#claim-highlight")
    highlight = page.locator("mark#claim-highlight")
    assert highlight.inner_text() == "ICE detained nearly 1,500 people in May."
    assert page.locator("#article-text").inner_text().startswith("Officials met on Monday.")
    # The project's stylesheet (not the browser's default <mark>) colours the highlight.
    assert highlight.evaluate("el => getComputedStyle(el).backgroundColor") == "rgb(255, 229, 138)"
    assert highlight.is_visible()
    page.screenshot(path=str(ARTIFACTS / "claim-detail.png"), full_page=True)
