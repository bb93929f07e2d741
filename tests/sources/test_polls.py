"""Polls of sources and pasted links, against the local news site, through the real services."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from factcheck.articles.models import Article
from factcheck.factchecks.models import FactCheck
from factcheck.runs.models import PipelineRun, PipelineRunArticle
from factcheck.sources import services
from factcheck.sources.fetcher import FetchRefused
from factcheck.sources.models import LinkSubmission, Source, SourcePoll
from tests.sources.newsserver import NewsServer, published

pytestmark = pytest.mark.usefixtures("fast_fetch")


def _feed_source(site: NewsServer, name: str, numbers: list[int | str], **fields: object) -> Source:
    site.state.feeds[name] = numbers
    return services.source_create(name="Test Gazette", url=f"{site.base_url}/feeds/{name}.rss", **fields)  # type: ignore[arg-type]


def _run_articles(run: PipelineRun) -> set[int]:
    return set(PipelineRunArticle.objects.filter(run=run).values_list("article_id", flat=True))


def test_a_poll_stores_new_items_as_articles_and_queues_one_run(site: NewsServer) -> None:
    source = _feed_source(site, "gazette", [10, 11, 12])
    poll = services.source_poll(source_id=source.pk)
    assert poll is not None and poll.status == SourcePoll.Status.DONE
    assert (poll.items_seen, poll.articles_new, poll.items_failed) == (3, 3, 0)
    articles = {article.title: article for article in Article.objects.filter(import_batch=poll.import_batch)}
    assert set(articles) == {site.state.stories[n].title for n in (10, 11, 12)}
    article = articles[site.state.stories[11].title]
    assert article.outlet is not None and article.outlet.name == "Test Gazette"
    assert article.author == "Reporter 4"
    # The canonical address, without the feed's tracking parameters; the feed's date, not the fetch time.
    assert article.url == f"{site.base_url}/news/11"
    assert article.published_at == published(11)
    assert poll.run is not None and _run_articles(poll.run) == {a.pk for a in articles.values()}
    assert PipelineRun.objects.count() == 1
    source.refresh_from_db()
    assert source.last_success_at is not None and source.consecutive_failures == 0
    assert source.next_poll_at is not None and source.next_poll_at > timezone.now() + timedelta(minutes=29)


def test_an_unchanged_feed_is_not_read_again_and_a_grown_one_gives_only_its_new_items(site: NewsServer) -> None:
    source = _feed_source(site, "daily", [20, 21])
    services.source_poll(source_id=source.pk)
    second = services.source_poll(source_id=source.pk)
    assert second is not None and second.status == SourcePoll.Status.NOT_MODIFIED
    assert site.state.etag_checks["daily"] == 1
    site.state.feeds["daily"] = [22, 20, 21]
    third = services.source_poll(source_id=source.pk)
    assert third is not None and (third.items_seen, third.items_known, third.articles_new) == (3, 2, 1)
    assert site.state.hits["/news/20"] == 1  # old items are not fetched again
    assert third.run is not None and _run_articles(third.run) == set(Article.objects.filter(url__endswith="/news/22").values_list("pk", flat=True))
    assert Article.objects.count() == 3


def test_a_feed_that_repeats_old_items_stores_them_once(site: NewsServer) -> None:
    source = services.source_create(name="Repeater", url=f"{site.base_url}/feeds/repeat.rss")
    services.source_poll(source_id=source.pk)
    again = services.source_poll(source_id=source.pk)
    assert again is not None and (again.items_seen, again.items_known, again.articles_new) == (3, 3, 0)
    assert again.run is None and again.import_batch is None
    assert Article.objects.count() == 3 and PipelineRun.objects.count() == 1
    assert all(site.state.hits[f"/news/{n}"] == 1 for n in range(3))


def test_variants_and_syndicated_copies_are_recognised(site: NewsServer) -> None:
    first = services.link_submit(url=f"{site.base_url}/news/30", created_by=None)  # type: ignore[arg-type]
    services.link_process(link_id=first.pk)
    article = Article.objects.get()
    for url in (f"{site.base_url}/news/30/?utm_campaign=x", f"{site.base_url}/amp/news/30", f"{site.base_url}/partner/30"):
        link = services.link_submit(url=url, created_by=None)  # type: ignore[arg-type]
        services.link_process(link_id=link.pk)
        link.refresh_from_db()
        assert link.status == LinkSubmission.Status.DONE, link.error
        assert link.article_id == article.pk and link.already_stored
    assert Article.objects.count() == 1
    # The address variants were recognised without fetching; the partner's copy by its text.
    assert site.state.hits["/news/30/"] == 0 and site.state.hits["/amp/news/30"] == 0
    assert site.state.hits["/partner/30"] == 1


def test_items_that_fail_are_listed_and_the_others_stored(site: NewsServer) -> None:
    source = _feed_source(site, "mixed", ["/private/news/41", "/status/500", 40, "/redirect?to=http://169.254.169.254/", "/cp1252/42"])
    poll = services.source_poll(source_id=source.pk)
    assert poll is not None and poll.status == SourcePoll.Status.DONE
    assert (poll.items_seen, poll.articles_new, poll.items_failed) == (5, 2, 3)
    reasons = [error["reason"] for error in poll.errors]
    assert "robots.txt" in reasons[0] and "500" in reasons[1] and "not a public address" in reasons[2]
    assert site.state.hits["/private/news/41"] == 0
    assert poll.run is not None and len(_run_articles(poll.run)) == 2
    assert poll.import_batch is not None and poll.import_batch.rows_rejected == 3 and len(poll.import_batch.errors) == 3
    assert "Café crème at €3" in Article.objects.get(title=site.state.stories[42].title).text


def test_a_failing_source_backs_off_and_says_so(site: NewsServer) -> None:
    source = services.source_create(name="Broken", url=f"{site.base_url}/status/503", poll_minutes=10)
    delays = []
    for _ in range(3):
        poll = services.source_poll(source_id=source.pk)
        assert poll is not None and poll.status == SourcePoll.Status.FAILED and "503" in poll.error
        source.refresh_from_db()
        delays.append(source.next_poll_at - source.last_error_at)  # type: ignore[operator]
    assert source.consecutive_failures == 3
    assert [round(delay.total_seconds() / 60) for delay in delays] == [20, 40, 80]
    assert "503" in source.last_error
    site.state.feeds["mended"] = [50]
    Source.objects.filter(pk=source.pk).update(url=f"{site.base_url}/feeds/mended.rss")
    services.source_poll(source_id=source.pk)
    source.refresh_from_db()
    assert source.consecutive_failures == 0 and source.last_success_at is not None


def test_the_backoff_is_capped(settings) -> None:
    settings.FACTCHECK_SOURCE_MAX_BACKOFF_MINUTES = 120
    source = Source(poll_minutes=30)
    assert services.backoff_delay(source=source, failures=0) == timedelta(minutes=30)
    assert services.backoff_delay(source=source, failures=50) == timedelta(minutes=120)


def test_a_section_page_gives_its_story_links(site: NewsServer) -> None:
    source = services.source_create(name="Section", url=f"{site.base_url}/news/60", kind=Source.Kind.SECTION, max_items=1)
    poll = services.source_poll(source_id=source.pk)
    # The article page links to "/news/61" (its "Next story"): one story, fetched and stored.
    assert poll is not None and poll.status == SourcePoll.Status.DONE, poll.error if poll else ""
    assert Article.objects.filter(url=f"{site.base_url}/news/61").exists()


def test_a_source_being_polled_is_not_polled_twice(site: NewsServer) -> None:
    source = _feed_source(site, "busy", [70])
    Source.objects.filter(pk=source.pk).update(polling_since=timezone.now())
    assert services.source_poll(source_id=source.pk) is None
    assert services.source_poll(source_id=999_999) is None


def test_due_sources_are_sent_once(site: NewsServer, monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[object, ...]] = []
    def task_send(task: object, *, args: tuple[object, ...], queue: str) -> bool:
        sent.append(tuple(args))
        return True

    monkeypatch.setattr(services, "task_send", task_send)
    due = _feed_source(site, "due", [1])
    later = _feed_source(site, "later", [2])
    Source.objects.filter(pk=later.pk).update(next_poll_at=timezone.now() + timedelta(hours=1))
    assert services.sources_due_send() == [due.pk]
    assert services.sources_due_send() == []
    assert sent == [(due.pk,)]


def test_a_claimreview_feed_goes_into_the_library_with_per_row_errors(site: NewsServer) -> None:
    source = services.source_create(name="Test Checkers", url=f"{site.base_url}/claimreviews.json", kind=Source.Kind.CLAIMREVIEW_FEED)
    poll = services.source_poll(source_id=source.pk)
    assert poll is not None and poll.status == SourcePoll.Status.DONE, poll.error if poll else ""
    assert poll.factcheck_import is not None
    assert poll.factcheck_import.rows_created == 4 and poll.factcheck_import.rows_rejected == 1
    assert FactCheck.objects.filter(publisher="Test Checkers").count() == 4
    again = services.source_poll(source_id=source.pk)
    assert again is not None and again.factcheck_import is not None and again.factcheck_import.rows_unchanged == 4
    assert FactCheck.objects.count() == 4


def test_claimreviews_in_fact_check_pages_go_into_the_library(site: NewsServer) -> None:
    source = services.source_create(name="Test Checkers", url=f"{site.base_url}/factchecks.rss", kind=Source.Kind.CLAIMREVIEW_PAGES)
    poll = services.source_poll(source_id=source.pk)
    assert poll is not None and poll.status == SourcePoll.Status.DONE, poll.error if poll else ""
    assert set(FactCheck.objects.values_list("url", flat=True)) == {f"{site.base_url}/factcheck/{n}" for n in (10, 11, 12)}
    again = services.source_poll(source_id=source.pk)
    assert again is not None and again.items_known == 3 and site.state.hits["/factcheck/10"] == 1


def test_a_pasted_link_is_fetched_stored_and_run(site: NewsServer, reviewer) -> None:
    submitted = services.link_submit(url=f"{site.base_url}/news/80?utm_source=twitter", created_by=reviewer)
    assert submitted.status == LinkSubmission.Status.QUEUED
    link = services.link_process(link_id=submitted.pk)
    assert link is not None and link.status == LinkSubmission.Status.DONE, link.error
    assert link.article is not None and not link.already_stored
    assert link.article.url == f"{site.base_url}/news/80"
    assert link.article.published_at == published(80)  # the page's stated date
    assert link.run is not None and _run_articles(link.run) == {link.article.pk} and link.run.created_by == reviewer
    assert services.link_process(link_id=link.pk) == link  # a second delivery changes nothing
    again = services.link_submit(url=f"{site.base_url}/news/80", created_by=reviewer)
    assert again.status == LinkSubmission.Status.DONE and again.already_stored and again.article_id == link.article.pk
    assert again.run is None  # its run is queued already
    assert Article.objects.count() == 1


@pytest.mark.parametrize("url", ["http://127.0.0.1:{port}/news/1", "http://169.254.169.254/latest/meta-data/", "http://[::1]:{port}/"])
def test_a_pasted_private_address_is_refused_before_anything_is_queued(site: NewsServer, reviewer, url: str) -> None:
    with pytest.raises(FetchRefused):
        services.link_submit(url=url.format(port=site.server_address[1]), created_by=reviewer)
    assert not LinkSubmission.objects.exists()


def test_a_link_that_fails_says_why(site: NewsServer, reviewer) -> None:
    cases = {
        f"{site.base_url}/redirect?to=http://169.254.169.254/latest/meta-data/": "not a public address",
        f"{site.base_url}/huge": "limit",
        f"{site.base_url}/bomb": "decompresses",
        f"{site.base_url}/loop/a": "redirect",
        f"{site.base_url}/private/news/3": "robots.txt",
    }
    for url, reason in cases.items():
        submitted = services.link_submit(url=url, created_by=reviewer)
        link = services.link_process(link_id=submitted.pk)
        assert link is not None and link.status == LinkSubmission.Status.FAILED and reason in link.error, (url, link.error if link else "")
    assert not Article.objects.exists() and not PipelineRun.objects.exists()


def test_the_database_gate_spaces_requests_to_a_host_across_workers() -> None:
    from factcheck.sources.models import HostSlot

    gate = services.DatabaseHostGate()
    with gate.hold("news.example:443", 0.3):
        pass
    slot = HostSlot.objects.get(host="news.example:443")
    assert slot.next_request_at > timezone.now()
    started = timezone.now()
    with gate.hold("news.example:443", 0.0):
        waited = (timezone.now() - started).total_seconds()
    assert waited >= 0.2
    with gate.hold("other.example:443", 0.0):
        pass
    assert HostSlot.objects.count() == 2


def test_the_source_page_counts_the_sources_articles_per_day(site: NewsServer) -> None:
    from factcheck.sources import selectors

    source = _feed_source(site, "counted", [110, 111, 112])
    other = _feed_source(site, "other", [113])
    services.source_poll(source_id=source.pk)
    services.source_poll(source_id=other.pk)
    # Published today (the feed's date is 2005 for the corpus): two today, one yesterday.
    now = timezone.now()
    articles = list(Article.objects.filter(import_batch__in=SourcePoll.objects.filter(source=source).values("import_batch")).order_by("pk"))
    Article.objects.filter(pk__in=[a.pk for a in articles[:2]]).update(published_at=now)
    Article.objects.filter(pk=articles[2].pk).update(published_at=now - timedelta(days=1))
    page = selectors.source_page(source_id=source.pk)
    assert page is not None and page.articles_total == 3
    assert page.days[-1] == (now.date(), 2) and page.days[-2] == ((now - timedelta(days=1)).date(), 1)
    assert page.per_day == pytest.approx(3 / 14)
    weekly = {item.pk: item.articles_week for item in selectors.sources_overview()}  # type: ignore[attr-defined]
    assert weekly == {source.pk: 3, other.pk: 0}


def test_a_poll_or_link_whose_worker_died_is_taken_over_after_the_limit(site: NewsServer, reviewer, settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    source = _feed_source(site, "orphan", [120])
    long_ago = timezone.now() - timedelta(seconds=settings.FACTCHECK_SOURCE_POLL_TIME_LIMIT + 60)
    dead = SourcePoll.objects.create(source=source)
    Source.objects.filter(pk=source.pk).update(polling_since=long_ago, next_poll_at=long_ago)
    sent: list[tuple[object, ...]] = []

    def task_send(task: object, *, args: tuple[object, ...], queue: str) -> bool:
        sent.append(tuple(args))
        return True

    monkeypatch.setattr(services, "task_send", task_send)
    assert services.sources_due_send() == [source.pk]
    poll = services.source_poll(source_id=source.pk)
    assert poll is not None and poll.status == SourcePoll.Status.DONE
    dead.refresh_from_db()
    assert dead.status == SourcePoll.Status.FAILED and "stopped" in dead.error

    link = services.link_submit(url=f"{site.base_url}/news/121", created_by=reviewer)
    LinkSubmission.objects.filter(pk=link.pk).update(status=LinkSubmission.Status.FETCHING, fetching_since=timezone.now())
    assert services.link_process(link_id=link.pk).status == LinkSubmission.Status.FETCHING  # type: ignore[union-attr]  # a live worker's
    LinkSubmission.objects.filter(pk=link.pk).update(fetching_since=timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60))
    sent.clear()
    services.links_resend()
    assert sent == [(link.pk,)]
    assert services.link_process(link_id=link.pk).status == LinkSubmission.Status.DONE  # type: ignore[union-attr]


def test_a_feed_listing_an_item_twice_fetches_it_once(site: NewsServer) -> None:
    source = _feed_source(site, "twice", [130, "/news/130/", 131])
    poll = services.source_poll(source_id=source.pk)
    assert poll is not None and (poll.items_seen, poll.items_known, poll.articles_new) == (3, 1, 2)
    assert site.state.hits["/news/130"] == 1 and site.state.hits["/news/130/"] == 0
