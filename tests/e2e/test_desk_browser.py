"""What a desk meets in a browser: the keyboard path from a queue page's load to the first
row's main action, counted; the claim page's actions before the article on a phone."""

from __future__ import annotations

import pytest

from tests.e2e.test_workflow_browser import browser, log_in  # noqa: F401 - the fixture
from tests.workflow.factories import make_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Issue 32, item 5: at most this many Tab presses from the queue page's load to the first
# row's main action.
TAB_BUDGET = 10


def focused(page) -> str:  # type: ignore[no-untyped-def]
    """What has the focus: its tag, text or name, enough to read a test's failure."""
    return str(page.evaluate(
        """() => { const el = document.activeElement; if (!el) return '';
             return [el.tagName, el.getAttribute('name') || '', el.getAttribute('value') || '', (el.innerText || '').trim().slice(0, 30)].join('|'); }"""
    ))


def test_tab_reaches_the_first_rows_assign_me_within_the_budget(browser, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """From the queue's load: Tab to the skip link, Enter, then Tab through the first row to
    its "Assign me"; the keys are counted and every stop is printed."""
    first = make_claim(priority=90.0, sentence="ICE detained 1,500 people in May.")
    make_claim(priority=50.0, sentence="The mayor said crime doubled since 2020.")
    page = log_in(browser, live_server, reviewer)
    page.goto(f"{live_server.url}/claims/")
    target = f"#claim-{first.pk} button[value=assign_me]"
    page.wait_for_selector(target)
    page.keyboard.press("Tab")
    stops = [focused(page)]
    assert stops[0] == "A|||Skip to the claims"
    page.keyboard.press("Enter")
    for _ in range(3 * TAB_BUDGET):
        if page.evaluate(f"() => document.activeElement === document.querySelector('{target}')"):
            break
        page.keyboard.press("Tab")
        stops.append(focused(page))
    print(f"\nTab presses from the queue's load to the first row's Assign me: {len(stops)} (and one Enter)\n" + "\n".join(stops))
    assert page.evaluate(f"() => document.activeElement === document.querySelector('{target}')"), stops
    assert len(stops) <= TAB_BUDGET, stops
    # Enter on it assigns the claim: the stop is the row's main action, not a look-alike (it
    # was not: the row took the focus on the click and htmx sent the form without the action).
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#claim-{first.pk} button[value=release]")


def test_rarely_used_filters_wait_behind_a_disclosure(browser, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """The date fields (four Tab stops each in Chromium) are behind "More filters", closed
    unless one of its filters is set."""
    make_claim()
    page = log_in(browser, live_server, reviewer)
    page.goto(f"{live_server.url}/claims/")
    assert not page.is_visible("#id_date_from") and not page.is_visible("#id_tag")
    page.goto(f"{live_server.url}/claims/?tag=budget")
    assert page.is_visible("#id_date_from") and page.input_value("#id_tag") == "budget"
    assert "More filters 1" in page.inner_text("details.more-filters > summary")


def test_a_row_action_moves_the_counts_without_a_reload(browser, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    first = make_claim(priority=90.0, sentence="ICE detained 1,500 people in May.")
    make_claim(priority=50.0, sentence="The mayor said crime doubled since 2020.")
    page = log_in(browser, live_server, reviewer)
    page.goto(f"{live_server.url}/claims/?status=new")
    page.wait_for_selector("[data-result-count='2']")
    assert page.inner_text("[data-my-claims-left]") == "0 left"
    page.click(f"#claim-{first.pk} button[value=assign_me]")
    page.wait_for_selector(f"#claim-{first.pk} button[value=release]")
    page.wait_for_function("() => document.querySelector('[data-my-claims-left]').textContent === '1 left'")
    page.click(f"#claim-{first.pk} details.dismiss summary")
    page.fill(f"#claim-{first.pk} input[name=reason]", "Opinion")
    page.click(f"#claim-{first.pk} details.dismiss button[type=submit]")
    # The dismissed claim leaves this view's count and the reviewer's "left", no reload.
    page.wait_for_selector("[data-result-count='1']")
    page.wait_for_function("() => document.querySelector('[data-my-claims-left]').textContent === '0 left'")
    assert page.evaluate("() => performance.getEntriesByType('navigation').length") == 1


def test_on_a_phone_the_claim_pages_actions_come_before_the_article(browser, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    claim = make_claim(status="check")
    page = log_in(browser, live_server, reviewer, width=390)
    page.goto(f"{live_server.url}/claims/{claim.pk}/")
    tops = page.evaluate(
        """() => Object.fromEntries(['#workflow', '#article-text', '#verdict'].map(s => [s, document.querySelector(s).getBoundingClientRect().top]))"""
    )
    assert tops["#workflow"] < tops["#article-text"], tops
    # On a desk's screen the verdict form takes the page's width, not a side column's.
    page = log_in(browser, live_server, reviewer, width=1280)
    page.goto(f"{live_server.url}/claims/{claim.pk}/")
    widths = page.evaluate("() => [document.querySelector('#verdict-form').getBoundingClientRect().width, document.querySelector('main').clientWidth]")
    assert widths[0] > 0.85 * widths[1], widths
    tops = page.evaluate("() => ['#workflow', '#article-text'].map(s => document.querySelector(s).getBoundingClientRect().top)")
    assert tops[0] < tops[1], tops


def test_the_key_help_opens_at_its_top(browser, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    make_claim()
    page = log_in(browser, live_server, reviewer, width=1280)
    page.set_viewport_size({"width": 1280, "height": 400})  # shorter than the queue's help
    page.goto(f"{live_server.url}/claims/")
    page.keyboard.press("?")
    page.wait_for_selector("#key-help[open]")
    assert page.evaluate("() => document.querySelector('#key-help').scrollHeight > document.querySelector('#key-help').clientHeight")
    assert page.evaluate("() => document.querySelector('#key-help').scrollTop") == 0
    assert page.evaluate("() => document.activeElement.id") == "key-help-title"
    assert "Tab to “Claim reviewed”" in page.inner_text("#key-help")
