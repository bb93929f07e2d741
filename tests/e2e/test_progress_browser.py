"""Progress in a real browser over a real run: an import of the seed articles goes through a
real Celery worker and spark-submit while the import and run pages poll; they show the stage,
counts and bar as the job reports them, and end with a link to exactly the new claims."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from factcheck.articles.seeds import seed_articles
from factcheck.articles.services import articles_import
from factcheck.claims.models import Claim
from factcheck.runs.models import PipelineRun
from tests.conftest import Worker, wait_for_run
from tests.e2e.test_browser import ARTIFACTS
from tests.e2e.test_workflow_browser import browser, log_in  # noqa: F401 - the fixture
from tests.web.test_queue import shown_ids

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def watch_run(run_id: int, seen: list[tuple[str, int, int]], stop: threading.Event) -> None:
    """What the run's row said, each time it changed: (stage, articles_done, claims_count)."""
    try:
        while not stop.is_set():
            row = PipelineRun.objects.filter(pk=run_id).values_list("stage", "articles_done", "claims_count").first()
            if row and (not seen or seen[-1] != row):
                seen.append(row)
            time.sleep(0.1)
    finally:
        connection.close()


def test_the_import_and_run_pages_follow_a_real_run_to_its_new_claims(celery_worker: Worker, browser, live_server, admin_user) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    result = articles_import(source="seeds", articles=seed_articles())
    assert result.run is not None and result.batch is not None
    run_id, batch_id = result.run.pk, result.batch.pk
    seen: list[tuple[str, int, int]] = []
    stop = threading.Event()
    watcher = threading.Thread(target=watch_run, args=(run_id, seen, stop), daemon=True)
    watcher.start()

    page = log_in(browser, live_server, admin_user)
    page.goto(f"{live_server.url}/runs/{run_id}/")
    # While it runs the page shows a step of five with a bar, and updates itself to the end.
    assert page.inner_text(".run-stage").startswith(("Queued", "Step "))
    assert page.query_selector(f"#run-progress-{run_id} progress") is not None
    page.screenshot(path=str(ARTIFACTS / "progress-run-running.png"), full_page=True)
    run = wait_for_run(run_id)
    assert run.status == PipelineRun.Status.SUCCEEDED, f"{run.error}\n{run.log_tail}"
    link = page.wait_for_selector(f"#run-new-claims-{run_id}", timeout=15_000)
    stop.set()
    watcher.join()

    new_claims = Claim.objects.filter(first_run_id=run_id).count()
    assert new_claims > 0 and link.inner_text() == f"See the {new_claims} new claims"
    assert page.inner_text(".run-stage") == "Step 5 of 5: Done"
    assert page.get_attribute(f"#run-progress-{run_id} progress", "value") == "100"
    # The job reported its stages in order, and the extraction's counts before clustering.
    stages = [stage for stage, _, _ in seen]
    order = ["submitting", "extracting", "clustering", "writing", "done"]
    reported = [stage for stage in order if stage in stages]
    assert reported == sorted(reported, key=order.index) and {"clustering", "done"} <= set(reported)
    at_clustering = next(row for row in seen if row[0] == "clustering")
    assert at_clustering[1] == run.articles_count == 3 and at_clustering[2] > 0
    page.screenshot(path=str(ARTIFACTS / "progress-run-done.png"), full_page=True)

    # The import's page ends the same way; its key opens the queue filtered to those claims.
    page.goto(f"{live_server.url}/imports/{batch_id}/")
    assert page.inner_text("#import-new-claims") == f"See the {new_claims} new claims of this import"
    page.screenshot(path=str(ARTIFACTS / "progress-import-done.png"), full_page=True)
    with page.expect_navigation():
        page.keyboard.press("n")
    assert page.url.endswith(f"/claims/?import={batch_id}")
    shown = set(shown_ids(page.content()))
    assert shown <= set(Claim.objects.filter(first_run_id=run_id).values_list("pk", flat=True))
    # A page of the queue, one row per cluster (the seeds' shared quotes are one row each).
    rows = set(Claim.objects.filter(first_run_id=run_id).values_list("cluster_id", flat=True))
    assert len(shown) == min(len(rows), 50) and len(rows) < new_claims
