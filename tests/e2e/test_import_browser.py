"""An admin uploads a file in a real browser and watches the import run on a real Celery worker."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from factcheck.articles.models import Article, ImportBatch
from tests.conftest import PERSONA_PASSWORD, UNCONSUMED_QUEUE, Worker, route_to_unconsumed_queue
from tests.e2e.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS = 400


@pytest.fixture
def import_worker(transactional_db) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    # The worker imports; the pipeline run it then creates waits on a queue nobody reads
    # (this test is about the import and its page, not about Spark).
    worker = Worker(extra_env={"CELERY_SPARK_QUEUE": UNCONSUMED_QUEUE})
    worker.route_here()
    yield worker
    worker.stop()
    route_to_unconsumed_queue()


@pytest.fixture
def csv_file(tmp_path: Path) -> Path:
    lines = ["title,text,url,outlet,published_at"]
    for n in range(ROWS):
        lines.append(f'Story {n},"Officials said {n} people were detained in raid number {n}.",https://news.example/{n},Example News,2025-05-0{1 + n % 9}')
    lines.append('No text,"",https://news.example/empty,Example News,2025-05-01')
    lines.append('Bad date,"A fine sentence about row two.",https://news.example/bad-date,Example News,the fifth of May')
    path = tmp_path / "articles.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_admin_uploads_and_sees_progress_then_summary(live_server, admin_user, import_worker, csv_file: Path) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    settings.FACTCHECK_IMPORT_INLINE_MAX_BYTES = 0  # every upload goes through the worker
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.goto(f"{live_server.url}/login/")
            page.fill("#id_username", admin_user.username)
            page.fill("#id_password", PERSONA_PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url(f"{live_server.url}/claims/**")

            page.goto(f"{live_server.url}/imports/")
            page.set_input_files("input[type=file]", str(csv_file))
            with page.expect_navigation():
                page.click("text=Import file")
            assert "/imports/" in page.url
            page.wait_for_selector("#import-progress")
            page.screenshot(path=str(ARTIFACTS / "import-progress.png"), full_page=True)
            # htmx polls the progress partial until the summary appears, without a reload.
            page.wait_for_selector("#import-summary", timeout=90_000)
            summary = page.inner_text("#import-summary")
            page.screenshot(path=str(ARTIFACTS / "import-done.png"), full_page=True)
            with page.expect_download() as download:
                page.click("text=download the error report (CSV)")
            report = Path(download.value.path()).read_text(encoding="utf-8")
            browser.close()
    finally:
        settings.FACTCHECK_IMPORT_INLINE_MAX_BYTES = 1024**2
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)

    assert f"{ROWS + 2} rows read: {ROWS} stored, 0 duplicates, 2 rejected." in summary
    batch = ImportBatch.objects.get()
    assert (batch.status, batch.rows_stored, batch.rows_rejected) == ("done", ROWS, 2)
    assert Article.objects.count() == ROWS
    assert "text" in report.lower() and "date" in report.lower()
