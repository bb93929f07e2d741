"""The keyboard flow in a real browser: a whole triage-annotate-verdict pass without the mouse,
counted; "next claim" staying in the view the claim was opened from; `?` help on every page
kind listing every key the page binds."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from factcheck.articles.models import ImportBatch
from factcheck.claims.models import Annotation, Claim, ClaimCluster, Evidence, Verdict
from factcheck.runs.models import PipelineRun
from tests.e2e.test_browser import ARTIFACTS
from tests.e2e.test_workflow_browser import browser, log_in  # noqa: F401 - the fixture
from tests.workflow.factories import make_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# What a pass may cost in keys besides the text typed (issue 15, item 4).
KEYSTROKE_BUDGET = 40


class Keys:
    """Presses keys on a page and counts them; text typed into fields is not counted."""

    def __init__(self, page) -> None:  # type: ignore[no-untyped-def]
        self.page = page
        self.count = 0

    def press(self, key: str) -> None:
        self.count += 1
        self.page.keyboard.press(key)

    def press_and_load(self, key: str) -> None:
        """A key that submits a form or follows a link: wait for the page it loads."""
        with self.page.expect_navigation():
            self.press(key)

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)


def claim_id(url: str) -> int:
    return int(urlsplit(url).path.rstrip("/").rsplit("/", 1)[1])


def view_of(url: str) -> list[str]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True).get("view", [])


@pytest.fixture
def view_world() -> Iterator[dict[str, Claim]]:
    """Three MassLive claims and, ranked between them, one of another outlet: a view filtered
    to MassLive must skip it."""
    claims = {
        "first": make_claim(outlet="MassLive", priority=90.0, sentence="ICE detained 1,500 people in May."),
        "other": make_claim(outlet="Boston Globe", priority=80.0, sentence="The state spent $2 billion on shelters."),
        "second": make_claim(outlet="MassLive", priority=70.0, sentence="Unemployment fell to 3.1% in June."),
        "third": make_claim(outlet="MassLive", priority=50.0, sentence="The mayor said crime doubled since 2020."),
    }
    yield claims


def test_a_whole_pass_by_keyboard_then_the_next_claim_of_the_view(browser, live_server, reviewer, view_world) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    first, second, third = view_world["first"], view_world["second"], view_world["third"]
    outlet = first.article.outlet_id
    page = log_in(browser, live_server, reviewer)
    page.goto(f"{live_server.url}/claims/?outlet={outlet}")
    keys = Keys(page)

    # Triage: the first claim of the view, opened and marked "check it".
    keys.press("j")
    keys.press_and_load("Enter")
    assert claim_id(page.url) == first.pk and view_of(page.url) == [f"outlet={outlet}"]
    keys.press_and_load("c")
    assert page.inner_text("#claim-status") == "Check it"

    # Annotate: a note, then a piece of evidence.
    keys.press("n")
    keys.type("ICE's monthly table is the source; check May against April.")
    keys.press_and_load("Control+Enter")
    keys.press("e")
    keys.press("o")  # the evidence kind, by its first letter: Official statistic
    keys.press("Tab")
    keys.type("https://www.ice.gov/statistics")
    keys.press("Tab")
    keys.type("ICE detention statistics, May")
    keys.press_and_load("Enter")
    assert "ICE detention statistics, May" in page.inner_text("#evidence")

    # Verdict: rating, headline, explanation, sent; the page moves on.
    keys.press("2")
    keys.press("h")
    keys.type("Roughly right: ICE reported 1,450 detentions")
    keys.press("Tab")  # "Claim reviewed", left empty: made from the sentence
    keys.press("Tab")
    keys.type("ICE's May table lists 1,450.")
    keys.press_and_load("Control+Enter")
    page.screenshot(path=str(ARTIFACTS / "keyboard-next-claim.png"), full_page=True)

    print(f"\nkeystrokes for a triage-annotate-verdict pass (text typed not counted): {keys.count}")
    assert keys.count < KEYSTROKE_BUDGET
    # The next claim of the same filtered view: the other outlet's claim ranked between is skipped.
    assert claim_id(page.url) == second.pk and view_of(page.url) == [f"outlet={outlet}"]
    assert "This is the next claim of your view" in page.inner_text("main")

    first.refresh_from_db()
    verdict = Verdict.objects.get(claim=first)
    assert (first.cluster.status, verdict.rating, verdict.headline, verdict.author) == (
        "drafted", "mostly_true", "Roughly right: ICE reported 1,450 detentions", reviewer,
    )
    assert verdict.explanation == "ICE's May table lists 1,450." and verdict.claim_reviewed  # the default, from the sentence
    assert Annotation.objects.get(claim=first).body == "ICE's monthly table is the source; check May against April."
    evidence = Evidence.objects.get(claim=first)
    assert (evidence.kind, evidence.url) == ("official_statistic", "https://www.ice.gov/statistics")

    # j skips without deciding; a dismissal on the last claim of the view goes back to the view.
    keys.press_and_load("j")
    assert claim_id(page.url) == third.pk
    assert page.query_selector("#next-claim") is None and "the last claim of the view" in page.inner_text(".crumbs")
    keys.press("d")
    keys.type("Opinion, nothing to check")
    keys.press_and_load("Enter")
    assert urlsplit(page.url).path == "/claims/" and parse_qs(urlsplit(page.url).query) == {"outlet": [str(outlet)]}
    assert "That was the last claim of this view" in page.inner_text("main")
    third.refresh_from_db()
    second.refresh_from_db()
    assert (third.cluster.status, second.cluster.status) == ("dismissed", "new")


def bound_keys(page) -> set[str]:  # type: ignore[no-untyped-def]
    """The keys the page binds, read from the page itself: every control keys.js acts on and
    every key it handles itself on an element (j/k over rows, Ctrl+Enter, Escape)."""
    return set(
        page.evaluate(
            """() => Array.from(document.querySelectorAll('[data-key], [data-key-doc]'))
                 .filter(el => !el.closest('#key-help'))
                 .map(el => el.getAttribute('data-key') || el.getAttribute('data-key-doc'))"""
        )
    )


def help_keys(page) -> set[str]:  # type: ignore[no-untyped-def]
    return set(page.eval_on_selector_all("#key-help [data-key-help-list] kbd[data-help-key]", "els => els.map(el => el.dataset.helpKey)"))


def open_help(page, name: str) -> set[str]:  # type: ignore[no-untyped-def]
    page.keyboard.press("Escape")  # out of a field that has the focus (the login form's)
    page.keyboard.press("?")
    page.wait_for_selector("#key-help[open]")
    listed = help_keys(page)
    bound = bound_keys(page)
    assert bound <= listed, f"{name}: bound but not in the help: {sorted(bound - listed)}"
    assert listed <= bound, f"{name}: in the help but not bound: {sorted(listed - bound)}"
    assert {"?", "Escape"} <= listed
    page.screenshot(path=str(ARTIFACTS / f"keys-help-{name}.png"))
    page.keyboard.press("Escape")
    page.wait_for_selector("#key-help:not([open])", state="attached")
    return listed


def test_question_mark_opens_help_listing_every_key_of_every_page_kind(browser, live_server, admin_user, view_world) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    claim = view_world["first"]
    batch = ImportBatch.objects.create(source="june.csv", status=ImportBatch.Status.DONE)
    run = PipelineRun.objects.create(import_batch=batch, status=PipelineRun.Status.SUCCEEDED, stage="done", articles_count=4)
    # Marked "check it": the claim page then has its verdict form (and its keys) too.
    Claim.objects.filter(pk=claim.pk).update(first_run=run)
    ClaimCluster.objects.filter(appearances=claim).update(status=Claim.Status.CHECK)

    logged_out = browser.new_context().new_page()
    logged_out.goto(f"{live_server.url}/login/")
    open_help(logged_out, "login")

    page = log_in(browser, live_server, admin_user)
    page.goto(f"{live_server.url}/claims/")
    queue = open_help(page, "queue")
    assert {"j", "k", "Enter", "x", "a", "c", "d", "/"} <= queue

    page.goto(f"{live_server.url}/claims/{claim.pk}/?view=")
    on_claim = open_help(page, "claim")
    assert {"e", "n", "h", "j", "u", "Control+Enter", "1", "7"} <= on_claim
    claim_keys = bound_keys(page)

    # The queue's help lists the claim page's keys too, and the run's and the import's.
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    run_keys = open_help(page, "run")
    assert "n" in run_keys
    page.goto(f"{live_server.url}/imports/{batch.pk}/")
    import_keys = open_help(page, "import")
    assert "u" in import_keys
    page.goto(f"{live_server.url}/claims/")
    page.keyboard.press("?")
    page.wait_for_selector("#key-help[open]")
    for kind, bound in (("claim", claim_keys), ("run", run_keys), ("import", import_keys)):
        labels = set(page.eval_on_selector_all(f'#key-help [data-key-page="{kind}"] kbd', "els => els.map(el => el.textContent)"))
        shown = {{"Escape": "Esc", "Control+Enter": "Ctrl+Enter"}.get(key, key) for key in bound - {"?", "Escape"}}
        # A numbered family (the ratings) is one entry, under its first key.
        shown -= {str(n) for n in range(2, 10)}
        assert shown <= labels, f"the queue's help lacks the {kind} page's {sorted(shown - labels)}"
    page.keyboard.press("Escape")

    for name, path in (
        ("runs", "/runs/"),
        ("import-new", "/imports/"),
        ("reports", "/exports/report/"),
        ("ranking", "/claims/ranking/"),
        ("library-import", "/library/import/"),
    ):
        page.goto(f"{live_server.url}{path}")
        open_help(page, name)
