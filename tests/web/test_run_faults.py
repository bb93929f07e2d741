"""Runs survive faults: failed attempts are retried, stale ones reaped, lost messages sent again.

Personas: admin may re-run a finished run from its page; reviewer, editor and outsider may not.
The end-to-end versions (a real worker, a real spark-submit killed) are in tests/e2e/test_chaos.py.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from factcheck.articles.models import Article
from factcheck.articles.services import ArticleInput, article_ingest, articles_import, articles_import_file, import_text
from factcheck.audit.models import AuditEvent
from factcheck.celery import app
from factcheck.runs import services, spark, tasks
from factcheck.runs.models import PipelineRun, PipelineRunArticle
from factcheck.runs.selectors import article_ids_unscheduled
from factcheck.runs.spark import database_url_for_job
from tests.conftest import PERSONA_PASSWORD

pytestmark = pytest.mark.django_db

TEXT = "ICE detained nearly 1,500 people in Chicago last month, officials said."


@pytest.fixture
def run() -> PipelineRun:
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    return services.run_create(article_ids=[article.pk])


def claim(run: PipelineRun) -> int:
    attempt = services.run_claim(run_id=run.pk, worker="w1", spark_master="local[*]")
    assert attempt is not None
    return attempt


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def sending_to(broker_url: str) -> Iterator[None]:
    """The Celery app sends its messages to `broker_url` inside the block (broker_write_url:
    the CELERY_BROKER_URL environment variable would override broker_url)."""

    def use(url: str | None) -> None:
        app.conf.broker_write_url = url
        app._pool = None
        app.amqp._producer_pool = None

    use(broker_url)
    try:
        yield
    finally:
        use(None)


def broker_down() -> AbstractContextManager[None]:
    return sending_to(f"redis://127.0.0.1:{closed_port()}/0")


# --- Retries ---------------------------------------------------------------------------------


def test_a_failed_attempt_is_queued_again_with_backoff_until_the_last(run: PipelineRun, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_RUN_MAX_ATTEMPTS = 3
    settings.FACTCHECK_RUN_RETRY_SECONDS = 60
    for attempt, wait in ((1, 60), (2, 240)):
        assert claim(run) == attempt
        before = timezone.now()
        services.run_finish(run_id=run.pk, attempt=attempt, exit_code=137, log_tail="killed\n", error="spark-submit exited with code 137")
        run.refresh_from_db()
        assert (run.status, run.stage, run.enqueued_at) == (PipelineRun.Status.QUEUED, "waiting to retry", None)
        assert run.error == f"Attempt {attempt} of 3 failed: spark-submit exited with code 137"
        assert before + timedelta(seconds=wait) <= run.not_before <= timezone.now() + timedelta(seconds=wait)
        # Not due yet: a message delivered now claims nothing.
        assert services.run_claim(run_id=run.pk, worker="w1", spark_master="local[*]") is None
        PipelineRun.objects.filter(pk=run.pk).update(not_before=timezone.now())
    assert claim(run) == 3
    services.run_finish(run_id=run.pk, attempt=3, exit_code=1, log_tail="", error="RuntimeError: boom")
    run.refresh_from_db()
    assert (run.status, run.stage, run.error, run.attempts) == (PipelineRun.Status.FAILED, "failed", "RuntimeError: boom", 3)
    assert run.finished_at is not None


def test_a_success_after_a_retry_clears_the_error(run: PipelineRun) -> None:
    services.run_finish(run_id=run.pk, attempt=claim(run), exit_code=1, log_tail="", error="RuntimeError: boom")
    PipelineRun.objects.filter(pk=run.pk).update(not_before=timezone.now())
    services.run_finish(run_id=run.pk, attempt=claim(run), exit_code=0, log_tail="ok\n")
    run.refresh_from_db()
    assert (run.status, run.error, run.attempts, run.progress) == (PipelineRun.Status.SUCCEEDED, "", 2, 1.0)


def test_a_time_limit_is_not_retried(run: PipelineRun) -> None:
    services.run_finish(run_id=run.pk, attempt=claim(run), exit_code=-1, log_tail="", error="Time limit exceeded", retry=False)
    run.refresh_from_db()
    assert run.status == PipelineRun.Status.FAILED and run.attempts == 1


# --- Heartbeats and the reaper ---------------------------------------------------------------


def stage_scratch_rows(run_id: int) -> None:
    # As spark-submit does: through its own connection, committed.
    with psycopg.connect(database_url_for_job(), autocommit=True) as other:
        other.execute("INSERT INTO claim_cluster_remap (run_id, old_key, new_key) VALUES (%s, 'a', 'b')", [run_id])
        other.execute("INSERT INTO claim_cluster_assignments (run_id, claim_key, cluster_key) VALUES (%s, 'a', 'a')", [run_id])


def scratch_rows(run_id: int) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT count(*) FROM claim_cluster_remap WHERE run_id = %s) + (SELECT count(*) FROM claim_cluster_assignments WHERE run_id = %s)",
            [run_id, run_id],
        )
        return int(cursor.fetchone()[0])


def make_stale(run: PipelineRun, settings) -> None:  # type: ignore[no-untyped-def]
    PipelineRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=settings.FACTCHECK_RUN_STALE_SECONDS + 1))


def test_the_reaper_requeues_a_run_whose_heartbeat_stopped_and_clears_its_staging(run: PipelineRun, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_RUN_MAX_ATTEMPTS = 3
    alive = services.run_create(article_ids=[run.articles.get().pk])
    attempt = claim(run)
    claim(alive)
    stage_scratch_rows(run.pk)
    stage_scratch_rows(alive.pk)
    make_stale(run, settings)

    result = services.runs_reap()
    assert (result.requeued, result.failed) == ([run.pk], [])
    run.refresh_from_db()
    assert (run.status, run.attempts, run.enqueued_at) == (PipelineRun.Status.QUEUED, 1, None)
    assert run.error.startswith("Attempt 1 of 3 failed: The worker (w1) stopped answering")
    assert scratch_rows(run.pk) == 0 and scratch_rows(alive.pk) == 2
    assert PipelineRun.objects.get(pk=alive.pk).status == PipelineRun.Status.RUNNING  # its heartbeat is fresh
    # The attempt that lost the run cannot mark it alive, nor end it, once it is taken back.
    assert not services.run_heartbeat(run_id=run.pk, attempt=attempt)
    PipelineRun.objects.filter(pk=run.pk).update(not_before=timezone.now())
    assert claim(run) == 2
    services.run_finish(run_id=run.pk, attempt=attempt, exit_code=0, log_tail="")
    assert PipelineRun.objects.get(pk=run.pk).status == PipelineRun.Status.RUNNING
    assert services.run_heartbeat(run_id=run.pk, attempt=2)
    services.run_scratch_clear(run_id=alive.pk)


def test_the_reaper_fails_a_stale_run_on_its_last_attempt(run: PipelineRun, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_RUN_MAX_ATTEMPTS = 1
    claim(run)
    make_stale(run, settings)
    assert services.runs_reap().failed == [run.pk]
    run.refresh_from_db()
    assert (run.status, run.stage) == (PipelineRun.Status.FAILED, "failed") and "stopped answering" in run.error


def test_the_reaper_sends_due_runs_whose_message_was_never_sent_or_may_be_lost(run: PipelineRun, settings) -> None:  # type: ignore[no-untyped-def]
    # In these tests on_commit never fires: the run was created, its message never sent.
    assert run.enqueued_at is None
    waiting = services.run_create(article_ids=[run.articles.get().pk])
    PipelineRun.objects.filter(pk=waiting.pk).update(not_before=timezone.now() + timedelta(minutes=5))
    assert services.runs_reap().sent == [run.pk]
    run.refresh_from_db()
    assert run.enqueued_at is not None
    assert services.runs_reap().sent == []  # sent once, until it may be lost
    PipelineRun.objects.filter(pk=run.pk).update(enqueued_at=timezone.now() - timedelta(seconds=settings.FACTCHECK_RUN_RESEND_SECONDS + 1))
    assert services.runs_reap().sent == [run.pk]


def test_a_broker_outage_leaves_the_run_queued_and_the_reaper_sends_it_after(run: PipelineRun) -> None:
    with broker_down():
        started = time.monotonic()
        assert not services.run_send(run_id=run.pk)
        assert time.monotonic() - started < 5
        assert services.runs_reap().sent == []
        run.refresh_from_db()
        assert run.waiting_for_queue
    assert services.runs_reap().sent == [run.pk]
    run.refresh_from_db()
    assert not run.waiting_for_queue


def test_the_reaper_runs_from_celery_beat(settings) -> None:  # type: ignore[no-untyped-def]
    entry = settings.CELERY_BEAT_SCHEDULE["runs-reap"]
    assert entry["task"] == tasks.runs_reap.name and entry["schedule"] == settings.FACTCHECK_REAPER_SECONDS
    assert tasks.runs_reap.name in app.tasks


# --- The worker's side: heartbeats, a lost run, a dead database connection -------------------


def fake_spark_submit(path: Path, *, seconds: float, exit_code: int) -> None:
    path.write_text(f"#!/bin/sh\necho fake spark-submit \"$@\"\nsleep {seconds}\nexit {exit_code}\n")
    path.chmod(0o755)


def test_the_task_marks_the_run_alive_while_spark_runs(run: PipelineRun, settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.SPARK_SUBMIT = str(tmp_path / "spark-submit")
    settings.SPARK_LOG_DIR = tmp_path / "logs"
    settings.FACTCHECK_RUN_HEARTBEAT_SECONDS = 1
    fake_spark_submit(Path(settings.SPARK_SUBMIT), seconds=2.5, exit_code=0)
    tasks.run_pipeline.apply(args=(run.pk,))
    run.refresh_from_db()
    assert run.status == PipelineRun.Status.SUCCEEDED and run.attempts == 1
    assert (run.heartbeat_at - run.started_at).total_seconds() >= 2


def test_a_run_taken_back_stops_its_spark_submit(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.SPARK_SUBMIT = str(tmp_path / "spark-submit")
    settings.SPARK_LOG_DIR = tmp_path / "logs"
    fake_spark_submit(Path(settings.SPARK_SUBMIT), seconds=60, exit_code=0)
    started = time.monotonic()
    result = spark.submit(run_id=424242, heartbeat=lambda: False, heartbeat_seconds=0.2)
    assert time.monotonic() - started < 10
    assert result.exit_code == spark.LOST_RUN_EXIT_CODE and "taken back" in result.error


@pytest.mark.django_db(transaction=True)
def test_finishing_reconnects_when_the_database_connection_died(settings) -> None:  # type: ignore[no-untyped-def]
    """A PostgreSQL restart during spark-submit kills the worker's idle connection."""
    settings.FACTCHECK_RUN_MAX_ATTEMPTS = 1
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = services.run_create(article_ids=[article.pk])
    attempt = claim(run)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    with psycopg.connect(database_url_for_job(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    tasks.with_database(
        lambda: services.run_finish(run_id=run.pk, attempt=attempt, exit_code=0, log_tail="done\n"), what="test", waits=(0.1,)
    )
    assert PipelineRun.objects.get(pk=run.pk).status == PipelineRun.Status.SUCCEEDED


# --- Articles whose runs failed are not lost ----------------------------------------------------


def fail_all_runs() -> None:
    PipelineRun.objects.update(status=PipelineRun.Status.FAILED, attempts=3)


def test_reimporting_an_unprocessed_article_schedules_it_again() -> None:
    first = articles_import(source="a", articles=[ArticleInput(text=TEXT), ArticleInput(text="Crime fell 12% last year.")]).run
    assert first is not None
    # Queued or running: scheduled already, so a re-import adds nothing.
    assert articles_import(source="b", articles=[ArticleInput(text=TEXT)]).run is None
    fail_all_runs()
    again = articles_import(source="c", articles=[ArticleInput(text=TEXT), ArticleInput(text="A new article.")]).run
    assert again is not None and again.articles_count == 2
    assert set(PipelineRunArticle.objects.filter(run=again).values_list("article__text", flat=True)) == {TEXT, "A new article."}
    PipelineRun.objects.filter(pk=again.pk).update(status=PipelineRun.Status.SUCCEEDED)
    # Processed: a re-import is a duplicate and nothing more.
    assert articles_import(source="d", articles=[ArticleInput(text=TEXT)]).run is None
    assert article_ids_unscheduled(Article.objects.values_list("pk", flat=True)) == list(
        Article.objects.filter(text="Crime fell 12% last year.").values_list("pk", flat=True)
    )


def test_reimporting_through_the_file_path_schedules_unprocessed_duplicates(admin_user, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import_text(fields={"text": TEXT}, created_by=admin_user)
    fail_all_runs()
    batch = import_text(fields={"text": TEXT}, created_by=admin_user)
    assert (batch.rows_duplicate, batch.rows_stored) == (1, 0)
    run = PipelineRun.objects.get(import_batch=batch)
    assert run.status == PipelineRun.Status.QUEUED and list(run.articles.values_list("text", flat=True)) == [TEXT]
    # A file with an unprocessed duplicate and a new article: the duplicate's run, and the
    # batch's own run over what it stored.
    fail_all_runs()
    source = tmp_path / "again.csv"
    source.write_text(f'text\n"{TEXT}"\nA new article about crime.\n')
    batch = articles_import_file(path=source, created_by=admin_user)
    runs = {tuple(r.articles.values_list("text", flat=True)) for r in PipelineRun.objects.filter(import_batch=batch)}
    assert runs == {(TEXT,), ("A new article about crime.",)}


def test_a_text_repeated_within_one_file_is_not_rescheduled_apart(admin_user, settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_IMPORT_CHUNK_ROWS = 1  # the repeat is in a later chunk than the first
    source = tmp_path / "repeat.csv"
    source.write_text(f'text\n"{TEXT}"\nA new article about crime.\n"{TEXT}"\n')
    batch = articles_import_file(path=source, created_by=admin_user)
    assert (batch.rows_stored, batch.rows_duplicate) == (2, 1)
    run = PipelineRun.objects.get(import_batch=batch)
    assert set(run.articles.values_list("text", flat=True)) == {TEXT, "A new article about crime."}


# --- The run page: retry by an admin ---------------------------------------------------------


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def test_an_admin_retries_a_failed_run_from_its_page(run: PipelineRun, admin_user) -> None:  # type: ignore[no-untyped-def]
    fail_all_runs()
    client = logged_in(admin_user)
    page = client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "Retry: run again over its 1 articles" in page
    response = client.post(reverse("runs:rerun", args=[run.pk]))
    rerun = PipelineRun.objects.exclude(pk=run.pk).get()
    assert response.status_code == 302 and response["Location"] == reverse("runs:detail", args=[rerun.pk])
    assert (rerun.rerun_of_id, rerun.status, rerun.created_by) == (run.pk, PipelineRun.Status.QUEUED, admin_user)
    assert list(rerun.articles.all()) == list(run.articles.all())
    event = AuditEvent.objects.get(verb="run.rerun")
    assert (event.actor, event.object_type, event.object_id, event.before, event.after) == (
        admin_user, "pipeline_run", run.pk, {"status": "failed"}, {"rerun": rerun.pk}
    )
    assert f"Run #{rerun.pk} queued" in client.get(response["Location"]).content.decode()
    # A second click while that re-run is pending makes no third run.
    again = client.post(reverse("runs:rerun", args=[run.pk]), follow=True).content.decode()
    assert f"being run again already, as run #{rerun.pk}" in again
    assert PipelineRun.objects.count() == 2 and AuditEvent.objects.count() == 1


def test_a_queued_run_is_not_run_again(run: PipelineRun, admin_user) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    assert "Retry" not in client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    response = client.post(reverse("runs:rerun", args=[run.pk]), follow=True)
    assert "only a finished run can be run again" in response.content.decode()
    assert PipelineRun.objects.count() == 1 and not AuditEvent.objects.exists()


@pytest.mark.parametrize("persona", ["reviewer", "editor", "outsider"])
def test_only_admins_may_rerun(request: pytest.FixtureRequest, run: PipelineRun, persona: str) -> None:
    fail_all_runs()
    client = logged_in(request.getfixturevalue(persona))
    assert client.post(reverse("runs:rerun", args=[run.pk])).status_code == 403
    assert PipelineRun.objects.count() == 1


def test_rerun_needs_post_and_an_existing_run(run: PipelineRun, admin_user, client: Client) -> None:  # type: ignore[no-untyped-def]
    assert client.post(reverse("runs:rerun", args=[run.pk])).status_code == 302  # anonymous: to the login page
    client = logged_in(admin_user)
    assert client.get(reverse("runs:rerun", args=[run.pk])).status_code == 405
    assert client.post(reverse("runs:rerun", args=[987654])).status_code == 404


def test_the_runs_page_counts_unprocessed_articles(run: PipelineRun, reviewer) -> None:  # type: ignore[no-untyped-def]
    fail_all_runs()
    page = logged_in(reviewer).get(reverse("runs:list")).content.decode()
    assert "1 article not processed yet" in page
