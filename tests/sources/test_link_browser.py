"""A reviewer pastes a link in a real browser; a real Celery worker fetches it from the local
news site and Spark extracts its claims; the page follows along and links to them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from factcheck.claims.models import Claim
from factcheck.sources.models import LinkSubmission
from tests.conftest import PERSONA_PASSWORD, Worker, route_to_unconsumed_queue
from tests.e2e.test_browser import ARTIFACTS, page  # noqa: F401 - the Playwright page fixture
from tests.sources.newsserver import NewsServer

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

STORY = 5


@pytest.fixture
def fetching_worker(transactional_db) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    # The test site is reached by its name, which an admin allowed (the web and the worker
    # read it from the database); 127.0.0.1 itself stays refused.
    from factcheck.sources.models import AllowedHost

    AllowedHost.objects.create(host="localhost", note="the tests' news site")
    worker = Worker(extra_env={"FACTCHECK_FETCH_HOST_DELAY_SECONDS": "0"})
    worker.route_here()
    yield worker
    worker.stop()
    route_to_unconsumed_queue()


def test_a_reviewer_pastes_a_link_and_reads_its_claims(page, live_server, reviewer, fetching_worker: Worker, site: NewsServer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", reviewer.username)
    page.fill("#id_password", PERSONA_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/claims/**")

    page.click("nav >> text=Sources")
    page.click("text=Paste a link")
    page.fill("#id_url", f"{site.base_url}/news/{STORY}?utm_source=share")
    with page.expect_navigation():
        page.click("text=Fetch the article")
    page.wait_for_selector("#link-progress")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "link-progress.png"), full_page=True)
    # htmx follows the fetch, then the run, until the link to the claims appears.
    page.wait_for_selector("#link-claims-link", timeout=240_000)
    page.screenshot(path=str(ARTIFACTS / "link-done.png"), full_page=True)
    assert site.state.stories[STORY].title in page.inner_text("#link-article")
    page.click("#link-claims-link")
    page.wait_for_selector("#claim-list")

    link = LinkSubmission.objects.get()
    assert link.status == LinkSubmission.Status.DONE and link.article is not None
    claims = list(Claim.objects.filter(article=link.article))
    assert claims
    listed = page.inner_text("#claim-list")
    assert any(claim.sentence[:60] in listed for claim in claims)
    assert link.article.url == f"{site.base_url}/news/{STORY}"
