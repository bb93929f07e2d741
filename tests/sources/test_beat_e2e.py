"""Celery beat polls a source on its schedule in a real worker; a broker outage loses no link."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from factcheck.articles.models import Article
from factcheck.runs.models import PipelineRun, PipelineRunArticle
from factcheck.sources import services
from factcheck.sources.models import AllowedHost, LinkSubmission, Source, SourcePoll
from tests.conftest import UNCONSUMED_QUEUE, Worker, route_to_unconsumed_queue
from tests.sources.newsserver import NewsServer


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_beat_polls_a_due_source_and_queues_one_run(site: NewsServer, tmp_path: Path) -> None:
    AllowedHost.objects.create(host="localhost", note="the tests' news site")
    site.state.feeds["beat"] = [100, 101]
    source = services.source_create(name="Beat Gazette", url=f"{site.base_url}/feeds/beat.rss", poll_minutes=60)
    # Runs go to a queue nobody reads: this test is about the poll, not about Spark.
    worker = Worker(
        extra_env={"CELERY_SPARK_QUEUE": UNCONSUMED_QUEUE, "FACTCHECK_SOURCES_BEAT_SECONDS": "1", "FACTCHECK_FETCH_HOST_DELAY_SECONDS": "0"},
        beat_schedule=tmp_path / "beat-schedule",
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not SourcePoll.objects.filter(source=source).exclude(status=SourcePoll.Status.RUNNING).exists():
            time.sleep(0.5)
        time.sleep(3)  # three more beats: the source is not due again for an hour
    finally:
        worker.stop()
        route_to_unconsumed_queue()
    polls = list(SourcePoll.objects.filter(source=source))
    assert len(polls) == 1 and polls[0].status == SourcePoll.Status.DONE and polls[0].articles_new == 2
    assert Article.objects.filter(outlet__name="Beat Gazette").count() == 2
    run = PipelineRun.objects.get()
    assert PipelineRunArticle.objects.filter(run=run).count() == 2 and run.enqueued_at is not None
    source.refresh_from_db()
    assert source.last_success_at is not None and source.next_poll_at is not None


@pytest.mark.django_db
def test_a_link_whose_message_was_lost_is_sent_by_the_beat(reviewer, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    import factcheck.queueing

    AllowedHost.objects.create(host="localhost")
    monkeypatch.setattr(factcheck.queueing, "task_send", lambda task, *, args, queue: False)
    with django_capture_on_commit_callbacks(execute=True):
        link = services.link_submit(url="http://localhost:1/news/1", created_by=reviewer)
    link.refresh_from_db()
    assert link.status == LinkSubmission.Status.QUEUED and link.error == services.QUEUE_UNAVAILABLE
    sent: list[tuple[object, ...]] = []

    def task_send(task: object, *, args: tuple[object, ...], queue: str) -> bool:
        sent.append(tuple(args))
        return True

    monkeypatch.setattr(factcheck.queueing, "task_send", task_send)
    assert services.links_resend() == [link.pk]
    assert sent == [(link.pk,)]
    link.refresh_from_db()
    assert link.error == ""
    assert Source.objects.count() == 0
