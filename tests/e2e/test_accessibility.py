"""Every page kind passes axe-core (no critical or serious violation), and phones fit.

axe-core is the copy bundled in the axe-playwright-python wheel (requirements-dev.txt), injected
into each page as it was served, Content-Security-Policy and all. The page kinds are drawn from
the URL configuration: a new named route fails test_every_route_is_a_checked_page_or_says_why
until it is visited here or listed with the reason it is no page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from factcheck.articles.models import ImportBatch
from factcheck.claims.models import BulkAction, Claim, ClaimCluster
from factcheck.claims.queue import services as queue_services
from factcheck.claims.workflow import services
from factcheck.factchecks.models import ClaimMatch, FactCheck, FactCheckImport
from factcheck.runs.models import PipelineRun
from tests.conftest import PERSONA_PASSWORD
from tests.e2e.test_browser import ARTIFACTS
from tests.e2e.test_workflow_browser import browser  # noqa: F401 - the Playwright browser fixture
from tests.sources import pages as source_pages
from tests.workflow.factories import make_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Routes that are no page of their own, and why. Everything else named in the URL
# configuration is visited below (the admin's through its registry).
NOT_PAGES = {
    "upload_allowed": "nginx's sub-request before an upload's body is read (204, 401 or 403, no page)",
    "logout": "a POST that redirects to the login page",
    "claims:triage": "a POST that redirects to the claim (refused: the claim page, checked as the 409 page)",
    "claims:assign": "a POST that redirects to the claim",
    "claims:tags": "a POST that redirects to the claim",
    "claims:annotate": "a POST that redirects to the claim",
    "claims:evidence": "a POST that redirects to the claim",
    "claims:verdict": "a POST that redirects to the claim",
    "claims:verdict-review": "a POST that redirects to the claim (refused: the 403 page)",
    "claims:row_action": "a POST answering a queue row (the queue page)",
    "claims:split": "a POST that redirects to the claim (refused: the claim page; its form is checked on the claim page, whose claim has two appearances)",
    "claims:count": "the queue's 'N claims' fragment, which the queue page loads into itself",
    "claims:row_appearances": "the list a queue row's '3 outlets' loads into itself when opened (the queue page)",
    "claims:article_titles": "the article filter's <option> suggestions, swapped into the queue page's datalist",
    "claims:mine": "a GET that redirects to the queue filtered to My claims (the queue page)",
    "claims:view_create": "a POST that redirects to the queue",
    "claims:view_delete": "a POST that redirects to the queue",
    "articles:upload": "a POST that redirects to the import (refused: the import page)",
    "articles:paste": "a POST that redirects to the import (refused: the import page)",
    "articles:errors": "a CSV download",
    "articles:resume": "a POST that redirects to the import",
    "factchecks:upload": "a POST that redirects to the library import (refused: the library's import page)",
    "factchecks:match_decide": "a POST that redirects to the claim",
    "factchecks:match_verdict": "a POST that redirects to the claim",
    "factchecks:attach": "a POST that redirects to the claim",
    "runs:rerun": "a POST that redirects to the new run",
    "reports:claims_csv": "a CSV download",
    "reports:report_pdf": "a PDF download (refused: the report form)",
    "learning:promote": "a POST that redirects to the models page",
    "learning:rollback": "a POST that redirects to the models page",
    "learning:refit": "a POST that redirects to the models page",
    "sources:poll": "a POST that redirects to the source",
    "sources:link_submit": "a POST that redirects to the link (refused: the paste-a-link page)",
    "publishing:feed": "a JSON-LD feed",
    "publishing:atom": "an Atom feed",
    "publishing:withdraw": "a POST that redirects to the claim",
    "publishing:jsonld": "a JSON-LD document",
}
# Pages a person reaches only through a form (a POST answered with a page), checked that way.
REACHED_BY_FORM = {"claims:bulk": "the bulk action's confirmation, from the queue's bulk form"}
# The JSON API (DRF's browsable renderer is a developer's view of it, not a page of the app).
NOT_PAGE_NAMESPACES = {"api": "the JSON API"}


def named_routes(patterns: list[Any], prefix: str = "") -> Iterator[str]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from named_routes(pattern.url_patterns, f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield prefix + pattern.name


@dataclass
class World:
    """One of each kind of object a page shows, for the admin persona to open."""

    claim: Claim
    published: Claim
    bulk: BulkAction
    run: PipelineRun
    batch: ImportBatch
    library_import: FactCheckImport
    saved_view_pk: int
    factcheck: FactCheck


def make_world(reviewer, editor, admin_user) -> World:  # type: ignore[no-untyped-def]
    claim = make_claim(status=Claim.Status.IN_RESEARCH, assignee=reviewer)
    evidence = services.evidence_add(claim=claim, actor=reviewer, kind="official_statistic", url="https://stats.example/t3", title="Table 3")
    services.annotation_add(claim=claim, actor=reviewer, body="ONS says otherwise: https://www.ons.gov.uk/t3 **table 3**")
    services.claim_tag(claim=claim, actor=reviewer, add=["immigration"])
    services.verdict_draft(
        claim=claim, actor=reviewer, rating="mostly_false", headline="Fewer than claimed", explanation="Table 3 shows 1,100.",
        evidence_ids=[evidence.pk],
    )
    earlier = FactCheck.objects.create(
        claim="ICE detained 1,500 in May.", publisher="Snopes", external_id="s1", url="https://snopes.example/ice", rating_text="False"
    )
    ClaimMatch.objects.create(claim=claim, factcheck=earlier, score=0.91, rank=1)
    published = make_claim(sentence="Unemployment fell to 4.1% in March.", status=Claim.Status.IN_RESEARCH, assignee=reviewer)
    verdict = services.verdict_draft(claim=published, actor=reviewer, rating="true", headline="It did", explanation="ONS, table 1.")
    services.verdict_approve(verdict=verdict, actor=editor, expected_version=verdict.version)
    make_claim(outlet="Breitbart News")  # a second row and outlet in the queue
    # The claim appears in a second outlet: one queue row ("2 outlets"), and the claim page
    # lists both appearances with the form that splits one out.
    again = make_claim(outlet="Boston Globe", sentence=claim.sentence, status=Claim.Status.IN_RESEARCH, assignee=reviewer)
    Claim.objects.filter(pk__in=[claim.pk, again.pk]).update(cluster_id=claim.claim_key)
    ClaimCluster.objects.update_or_create(cluster_key=claim.claim_key, defaults=dict(size=2, outlet_count=2))
    view = queue_services.saved_view_create(user=admin_user, name="Numbers", query="type=numeric")
    return World(
        claim=claim,
        published=published,
        bulk=BulkAction.objects.create(user=admin_user, action="check", total=3, done=2, skipped=1, status=BulkAction.Status.DONE),
        run=PipelineRun.objects.create(status=PipelineRun.Status.SUCCEEDED, stage="done", progress=1.0, articles_count=3, created_by=admin_user),
        batch=ImportBatch.objects.create(source="bbc.csv", format="csv", status=ImportBatch.Status.DONE, created_by=admin_user),
        library_import=FactCheckImport.objects.create(source="library.csv", created_by=admin_user),
        saved_view_pk=view.pk,
        factcheck=earlier,
    )


# Each page kind: route name -> the path of one such page in the world above.
PAGES: dict[str, Callable[[World], str]] = {
    "login": lambda w: reverse("login"),
    "claims:list": lambda w: reverse("claims:list"),
    "claims:detail": lambda w: reverse("claims:detail", args=[w.claim.pk]),
    "claims:view_open": lambda w: reverse("claims:view_open", args=[w.saved_view_pk]),
    "claims:bulk_detail": lambda w: reverse("claims:bulk_detail", args=[w.bulk.pk]),
    "claims:ranking": lambda w: reverse("claims:ranking"),
    "claims:approvals": lambda w: reverse("claims:approvals"),
    "claims:inbox": lambda w: reverse("claims:inbox"),
    "runs:list": lambda w: reverse("runs:list"),
    "runs:detail": lambda w: reverse("runs:detail", args=[w.run.pk]),
    "articles:new": lambda w: reverse("articles:new"),
    "articles:detail": lambda w: reverse("articles:detail", args=[w.batch.pk]),
    "factchecks:list": lambda w: reverse("factchecks:list") + f"?claim={w.claim.pk}&q=ICE",
    "factchecks:detail": lambda w: reverse("factchecks:detail", args=[w.factcheck.pk]),
    "factchecks:import": lambda w: reverse("factchecks:import"),
    "factchecks:import_detail": lambda w: reverse("factchecks:import_detail", args=[w.library_import.pk]),
    "reports:report": lambda w: reverse("reports:report"),
    "learning:versions": lambda w: reverse("learning:versions"),
    "sources:list": lambda w: reverse("sources:list"),
    "sources:detail": lambda w: reverse("sources:detail", args=[source_pages.a_source().pk]),
    "sources:link_new": lambda w: reverse("sources:link_new"),
    "sources:link_detail": lambda w: reverse("sources:link_detail", args=[source_pages.a_link().pk]),
    "publishing:page": lambda w: reverse("publishing:page", args=[w.published.pk]),
    "publishing:index": lambda w: reverse("publishing:index"),
    "publishing:organisation": lambda w: reverse("publishing:organisation"),
}


def test_every_route_is_a_checked_page_or_says_why() -> None:
    routes = set(named_routes(get_resolver().url_patterns))
    unaccounted = {
        name for name in routes
        if name not in PAGES and name not in REACHED_BY_FORM and name not in NOT_PAGES
        and name.split(":")[0] not in NOT_PAGE_NAMESPACES and not name.startswith("admin:")
    }
    assert unaccounted == set(), f"page kinds the accessibility check does not visit: {sorted(unaccounted)}"
    assert set(PAGES) | set(REACHED_BY_FORM) | set(NOT_PAGES) <= routes, "a listed route no longer exists"


SERIOUS = ("critical", "serious")


def shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """A full-page screenshot in test-artifacts/. The caret is left as it is: hiding it, Playwright
    injects a <style> element, which the Content-Security-Policy refuses (and the page did not)."""
    page.screenshot(path=str(ARTIFACTS / name), full_page=True, caret="initial")


class Checker:
    """Runs axe-core on the page as it stands and remembers what it found, per page kind."""

    def __init__(self) -> None:
        from axe_playwright_python.sync_playwright import Axe

        self.axe = Axe()
        self.found: dict[str, list[str]] = {}
        self.checked: list[str] = []
        self.refused: dict[str, list[str]] = {}

    def check(self, page, kind: str) -> None:  # type: ignore[no-untyped-def]
        # What the Content-Security-Policy refused while the page loaded; axe's own probes after
        # this point are not the page's.
        refused = getattr(page, "refused", [])
        if refused:
            self.refused[kind] = list(refused)
        results = self.axe.run(page)
        refused.clear()
        self.checked.append(kind)
        shot(page, f"axe-{kind.replace(':', '-')}.png")
        for violation in results.response["violations"]:
            if violation["impact"] in SERIOUS:
                targets = "; ".join(", ".join(map(str, node["target"])) for node in violation["nodes"][:5])
                self.found.setdefault(kind, []).append(f"{violation['id']} ({violation['impact']}): {violation['help']} at {targets}")


def signed_in(browser, live_server, user, *, width: int = 1280):  # type: ignore[no-untyped-def]  # noqa: F811
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    refused: list[str] = []
    page.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None)
    page.refused = refused
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PERSONA_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/claims/**")
    return page


def test_no_page_kind_has_a_critical_or_serious_axe_violation(browser, live_server, reviewer, editor, admin_user) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    world = make_world(reviewer, editor, admin_user)
    ARTIFACTS.mkdir(exist_ok=True)
    checker = Checker()

    anonymous = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    anonymous.refused = []
    anonymous.on("console", lambda message: anonymous.refused.append(message.text) if "Content Security Policy" in message.text else None)
    anonymous.goto(f"{live_server.url}{PAGES['login'](world)}")
    checker.check(anonymous, "login")

    page = signed_in(browser, live_server, admin_user)
    for kind, path in PAGES.items():
        if kind == "login":
            continue
        response = page.goto(f"{live_server.url}{path(world)}")
        assert response is not None and response.status == 200, (kind, response.status if response else None)
        checker.check(page, kind)

    # The bulk action's confirmation page, reached as a person reaches it.
    page.goto(f"{live_server.url}{reverse('claims:list')}")
    page.click(".bulk-panel summary")
    page.select_option("#bulk-form select[name=scope]", "filtered")
    page.select_option("#bulk-form select[name=action]", "assign")
    with page.expect_navigation():
        page.click("#bulk-form button[type=submit]")
    assert page.locator("form[action$='/claims/bulk/']").count() >= 1
    checker.check(page, "claims:bulk")

    # The refusals: 404, 403 (a reviewer at an admin's page), 409 (someone acted first).
    response = page.goto(f"{live_server.url}{reverse('claims:detail', args=[999_999])}")
    assert response is not None and response.status == 404
    checker.check(page, "error-404")
    page.goto(f"{live_server.url}{reverse('claims:detail', args=[world.claim.pk])}")
    services.claim_assign(claim=Claim.objects.get(pk=world.claim.pk), actor=editor, assignee=editor, force=True)
    with page.expect_navigation():
        page.click("#workflow form[action$='/assign/'] button[type=submit]")
    assert page.locator("#conflict, #held").count() == 1
    checker.check(page, "error-409")
    as_reviewer = signed_in(browser, live_server, reviewer)
    response = as_reviewer.goto(f"{live_server.url}{reverse('articles:new')}")
    assert response is not None and response.status == 403
    checker.check(as_reviewer, "error-403")

    # The admin: its index and every registered model's list and one object's form.
    page.goto(f"{live_server.url}{reverse('admin:index')}")
    checker.check(page, "admin:index")
    for model in admin.site._registry:
        meta = model._meta
        page.goto(f"{live_server.url}{reverse(f'admin:{meta.app_label}_{meta.model_name}_changelist')}")
        checker.check(page, f"admin:{meta.model_name}-list")
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            page.goto(f"{live_server.url}{reverse(f'admin:{meta.app_label}_{meta.model_name}_change', args=[first.pk])}")
            checker.check(page, f"admin:{meta.model_name}-form")

    assert set(PAGES) | set(REACHED_BY_FORM) <= set(checker.checked)
    assert checker.found == {}, "axe-core found:\n" + "\n".join(f"{kind}: {line}" for kind, lines in checker.found.items() for line in lines)
    assert checker.refused == {}, f"the Content-Security-Policy refused: {checker.refused}"


PHONE = 375


def scroll_width(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.evaluate("document.scrollingElement.scrollWidth"))


def test_phones_fit_375_px_and_the_queues_filter_panel_folds(browser, live_server, reviewer, editor, admin_user) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    world = make_world(reviewer, editor, admin_user)
    ARTIFACTS.mkdir(exist_ok=True)
    page = signed_in(browser, live_server, admin_user, width=PHONE)
    for name, path in (
        ("claim", reverse("claims:detail", args=[world.claim.pk])),
        ("import", reverse("articles:new")),
        ("library-import", reverse("factchecks:import")),
        ("queue", reverse("claims:list")),
    ):
        page.goto(f"{live_server.url}{path}")
        shot(page, f"phone-{name}.png")
        assert scroll_width(page) <= PHONE, f"the {name} page scrolls sideways at {PHONE} px: {scroll_width(page)} px wide"

    # On the phone the queue's filters fold away behind one button, and open on a tap.
    panel = page.locator("details.filter-panel")
    assert panel.evaluate("el => el.open") is False
    assert not page.locator("#id_outlet").is_visible()
    assert page.locator("#id_q").is_visible()  # the search stays at hand
    page.locator("details.filter-panel > summary").click()
    assert page.locator("#id_outlet").is_visible()
    shot(page, "phone-queue-filters-open.png")
    assert scroll_width(page) <= PHONE

    # On a wide screen they are open as served.
    wide = signed_in(browser, live_server, admin_user)
    assert wide.locator("details.filter-panel").evaluate("el => el.open") is True
    assert wide.locator("#id_outlet").is_visible()
    assert page.refused == [] and wide.refused == []


def test_htmx_refusals_show_the_servers_message_in_place(browser, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from django.contrib.auth.models import Group

    gone = make_claim(sentence="Crime rose 12% last year in Leeds.")
    make_claim(sentence="Wages grew 3.1% in the year to May.")
    ARTIFACTS.mkdir(exist_ok=True)
    page = signed_in(browser, live_server, reviewer, width=PHONE)
    page.goto(f"{live_server.url}{reverse('claims:list')}")
    assert page.locator("#refusal").inner_text() == ""

    # The claim was deleted while the queue was open: 404, said above the queue, the page kept.
    Claim.objects.filter(pk=gone.pk).delete()
    with page.expect_response(lambda response: response.status == 404):
        page.locator(f"tr:has-text('{gone.sentence}') button[name=action][value=check]").click()
    page.wait_for_function("() => document.querySelector('#refusal').innerText.includes('No such claim.')")
    assert page.locator("#queue-results").is_visible() and "/claims/" in page.url
    shot(page, "refusal-htmx-404.png")

    # The reviewer's role was taken away while the queue was open: 403 with its reason.
    reviewer.groups.remove(Group.objects.get(name="reviewer"))
    with page.expect_response(lambda response: response.status == 403):
        page.locator("tr:has-text('Wages grew') button[name=action][value=check]").click()
    page.wait_for_function("() => document.querySelector('#refusal').innerText.includes('This needs the reviewer role.')")
    assert page.locator("#refusal").get_attribute("role") == "alert"
    assert page.locator("header.top nav").is_visible()
    shot(page, "refusal-htmx-403.png")

    # The role given back, the next action goes through and the old refusal is gone.
    reviewer.groups.add(Group.objects.get(name="reviewer"))
    with page.expect_response(lambda response: response.status == 200 and "/row/" in response.url):
        page.locator("tr:has-text('Wages grew') button[name=action][value=check]").click()
    page.wait_for_function("() => document.querySelector('#refusal').innerText === ''")
    assert Claim.objects.get(sentence__startswith="Wages grew").cluster.status == Claim.Status.CHECK
    assert page.refused == []


def test_refusal_pages_in_the_browser_at_phone_width(browser, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    page = signed_in(browser, live_server, reviewer, width=PHONE)
    for status, path, message in (
        (403, reverse("articles:new"), "This needs the admin role."),
        (404, reverse("claims:detail", args=[999_999]), "No such claim."),
    ):
        response = page.goto(f"{live_server.url}{path}")
        assert response is not None and response.status == status
        assert page.locator("header.top nav").get_by_role("link", name="Claims", exact=True).is_visible()
        assert page.locator("#refusal-message").inner_text() == message
        assert scroll_width(page) <= PHONE
        shot(page, f"refusal-{status}.png")
    assert page.refused == []
