"""Writes for sources and pasted links: polls that turn new feed items into articles (one
pipeline run per poll), fact-checkers' ClaimReviews into the library, and links reviewers
paste. The slow parts (fetching) run in Celery tasks, outside transactions; each article is
stored through the article importer's own write (articles.services.article_ingest).
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from factcheck.articles.models import Article, ImportBatch
from factcheck.articles.readers import ImportFileError
from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.factchecks.models import FactCheck
from factcheck.factchecks.services import factchecks_import_file
from factcheck.queueing import queued_row_send, queued_rows_resend, task_send
from factcheck.runs.selectors import article_ids_unscheduled
from factcheck.runs.services import run_create
from factcheck.sources.extract import ExtractError, FeedItem, claim_reviews, feed_items, page_article, section_links
from factcheck.sources.fetcher import Fetcher, FetchFailed, FetchLimits, FetchRefused, FetchResult
from factcheck.sources.models import AllowedHost, ArticleKey, LinkSubmission, Source, SourcePoll
from factcheck.sources.urlkeys import text_fingerprint, url_key

logger = logging.getLogger(__name__)

HOST_LOCK_KEY = 0x46430002_00000000  # advisory lock keys of hosts being fetched: "FC" 2 << 48
PAGE_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
FEED_ACCEPT = "application/rss+xml,application/atom+xml,application/feed+json,application/xml;q=0.9,text/xml;q=0.9,*/*;q=0.5"
FETCH_ERRORS = (FetchRefused, FetchFailed, ExtractError)
QUEUE_UNAVAILABLE = "The task queue is unavailable: the link is fetched when it is back."
MAX_LISTED_ERRORS = 100


# --- The fetcher, as the workers use it ---------------------------------------------------


class DatabaseHostGate:
    """One request at a time per host across every worker process: a PostgreSQL advisory
    lock per host, and the host's next allowed time in its HostSlot row (two round trips a
    request: lock and read, then write and unlock)."""

    @contextmanager
    def hold(self, host: str, delay: float) -> Iterator[None]:
        key = HOST_LOCK_KEY + zlib.crc32(host.encode("utf-8"))
        with connection.cursor() as cursor:
            cursor.execute(HOST_SLOT_TAKE_SQL, [key, host])
            row = cursor.fetchone()
        try:
            next_at = row[1] if row else None
            if next_at is not None and (wait := (next_at - timezone.now()).total_seconds()) > 0:
                time.sleep(wait)
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute(HOST_SLOT_RELEASE_SQL, [host, timezone.now() + timedelta(seconds=delay), key])


# The lock is taken (waiting for another worker's request to that host to end) before the
# slot is read, and the slot is written before the lock is released: the next holder always
# reads the time this request set.
HOST_SLOT_TAKE_SQL = "SELECT pg_advisory_lock(%s), (SELECT next_request_at FROM source_host_slots WHERE host = %s)"
HOST_SLOT_RELEASE_SQL = (
    "WITH slot AS (INSERT INTO source_host_slots (host, next_request_at) VALUES (%s, %s) "
    "ON CONFLICT (host) DO UPDATE SET next_request_at = EXCLUDED.next_request_at RETURNING 1) "
    "SELECT pg_advisory_unlock(%s) FROM slot"
)


def allowed_hosts() -> frozenset[str]:
    """Hosts an admin allowed (the AllowedHost rows and FACTCHECK_FETCH_ALLOWED_HOSTS)."""
    return frozenset(AllowedHost.objects.values_list("host", flat=True)) | settings.FACTCHECK_FETCH_ALLOWED_HOSTS


def fetcher_create() -> Fetcher:
    limits = FetchLimits(
        user_agent=settings.FACTCHECK_FETCH_USER_AGENT,
        connect_timeout=settings.FACTCHECK_FETCH_CONNECT_TIMEOUT,
        read_timeout=settings.FACTCHECK_FETCH_READ_TIMEOUT,
        total_seconds=settings.FACTCHECK_FETCH_TOTAL_SECONDS,
        max_redirects=settings.FACTCHECK_FETCH_MAX_REDIRECTS,
        max_bytes=settings.FACTCHECK_FETCH_MAX_BYTES,
        max_decoded_bytes=settings.FACTCHECK_FETCH_MAX_DECODED_BYTES,
        retries=settings.FACTCHECK_FETCH_RETRIES,
        backoff_seconds=settings.FACTCHECK_FETCH_BACKOFF_SECONDS,
        host_delay_seconds=settings.FACTCHECK_FETCH_HOST_DELAY_SECONDS,
    )
    return Fetcher(limits=limits, allowed_hosts=allowed_hosts(), gate=DatabaseHostGate())


# --- One article from its page -------------------------------------------------------------


def article_known(*, urls: Iterable[str], fingerprint: str = "") -> Article | None:
    """The stored article one of these addresses (as given, or normalised) or this text
    fingerprint belongs to; None when it is new. One query."""
    raw = [url for url in dict.fromkeys(urls) if url]
    keys = [key for key in dict.fromkeys(url_key(url) for url in raw) if key]
    held = Q(kind=ArticleKey.Kind.URL, key__in=keys)
    if fingerprint:
        held |= Q(kind=ArticleKey.Kind.FINGERPRINT, key=fingerprint)
    if not raw and not fingerprint:
        return None
    return Article.objects.filter(Q(pk__in=ArticleKey.objects.filter(held).values("article_id")) | Q(url__in=raw)).order_by("pk").first()


def urls_known(urls: list[str], *, chunk: int = 1000) -> set[str]:
    """Of these addresses, those whose article is stored (by the address's key, or the exact
    url of an article imported from a file): a query per `chunk` addresses, not one each."""
    by_key: dict[str, list[str]] = {}
    for url in urls:
        if key := url_key(url):
            by_key.setdefault(key, []).append(url)
    keys = list(by_key)
    known: set[str] = set()
    for start in range(0, len(keys), chunk):
        held = ArticleKey.objects.filter(kind=ArticleKey.Kind.URL, key__in=keys[start : start + chunk]).values_list("key", flat=True)
        known.update(url for key in held for url in by_key[key])
    for start in range(0, len(urls), chunk):
        known.update(Article.objects.filter(url__in=urls[start : start + chunk]).values_list("url", flat=True))
    return known


def article_keys_add(*, article: Article, urls: Iterable[str], fingerprint: str = "") -> None:
    keys = [ArticleKey(kind=ArticleKey.Kind.URL, key=key, article=article) for key in dict.fromkeys(url_key(url) for url in urls) if key]
    if fingerprint:
        keys.append(ArticleKey(kind=ArticleKey.Kind.FINGERPRINT, key=fingerprint, article=article))
    # A key already held (by this or another copy of the story) stays with its first article.
    ArticleKey.objects.bulk_create(keys, ignore_conflicts=True)


@dataclass
class PageOutcome:
    article: Article
    created: bool


def page_store(*, fetcher: Fetcher, item: FeedItem, outlet: str, batch: ImportBatch, checked: bool = False) -> PageOutcome:
    """Fetch an item's page and store its article, unless an address it goes by or its text
    is stored already (then nothing is fetched or stored twice). `checked`: the caller found
    the item's own address unknown just now. Raises the fetch and extraction errors, and
    ValidationError for an article the importer refuses."""
    known = None if checked else article_known(urls=[item.url])
    if known is not None:
        return PageOutcome(known, False)
    result = fetcher.fetch(item.url, accept=PAGE_ACCEPT)
    _require_html(result)
    page = page_article(result.text(), url=result.url)
    if len(page.text) > settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS:
        raise ValidationError(f"The article has {len(page.text)} characters; the limit is {settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS}.")
    urls = [item.url, *result.redirects, result.url, page.canonical_url]
    fingerprint = text_fingerprint(page.text)
    known = article_known(urls=urls, fingerprint=fingerprint)
    if known is None:
        data = ArticleInput(
            text=page.text,
            title=item.title or page.title,
            # The canonical address: a syndicated copy names the original, which is then recognised when it comes.
            url=(page.canonical_url if url_key(page.canonical_url) else result.url)[:2000],
            outlet=outlet or page.site_name,
            author=item.author or page.author,
            # The feed's date, else the page's own; never the time we fetched it.
            published_at=item.published_at or page.published_at,
        )
        known, created = article_ingest(data=data, batch=batch)
    else:
        created = False
    article_keys_add(article=known, urls=urls, fingerprint=fingerprint)
    return PageOutcome(known, created)


def _require_html(result: FetchResult) -> None:
    if result.content_type and result.content_type not in {"text/html", "application/xhtml+xml", "text/plain"}:
        raise ExtractError(f"{result.url[:200]} is {result.content_type}, not a web page.")


def _batch_create(*, source: str, created_by: User | None = None) -> ImportBatch:
    batch = ImportBatch(
        source=source[:500], format=ImportBatch.Format.OTHER, status=ImportBatch.Status.IMPORTING,
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
    )
    batch.full_clean()
    batch.save()
    return batch


def _batch_close(batch: ImportBatch, *, read: int, stored: int, duplicate: int, rejected: int, errors: list[dict[str, object]]) -> None:
    ImportBatch.objects.filter(pk=batch.pk).update(
        status=ImportBatch.Status.DONE, rows_read=read, rows_stored=stored, rows_duplicate=duplicate, rows_rejected=rejected,
        errors=errors[:MAX_LISTED_ERRORS], finished_at=timezone.now(),
    )


# --- Sources: polls ----------------------------------------------------------------------


def backoff_delay(*, source: Source, failures: int) -> timedelta:
    """The wait before the next poll: the source's interval, doubled for each failure in a
    row (a source that keeps failing is asked less and less often), at most MAX_BACKOFF."""
    minutes = source.poll_minutes * 2 ** min(max(failures, 0), 16)
    return timedelta(minutes=min(minutes, settings.FACTCHECK_SOURCE_MAX_BACKOFF_MINUTES))


@transaction.atomic
def source_create(*, name: str, url: str, kind: str = Source.Kind.FEED, poll_minutes: int = 30, max_items: int = 200) -> Source:
    source = Source(name=" ".join(name.split()), url=url.strip(), kind=kind, poll_minutes=poll_minutes, max_items=max_items, next_poll_at=timezone.now())
    source.full_clean()
    source.save()
    return source


@dataclass
class _PollCounts:
    seen: int = 0
    known: int = 0
    new_ids: list[int] = field(default_factory=list)
    duplicate_ids: list[int] = field(default_factory=list)
    errors: list[dict[str, object]] = field(default_factory=list)

    def fail(self, url: str, reason: str) -> None:
        self.errors.append({"url": url[:500], "reason": reason[:500]})


def source_poll(*, source_id: int, fetcher: Fetcher | None = None) -> SourcePoll | None:
    """Poll a source once: its new items become articles, run through the pipeline as one
    run (or ClaimReviews into the library). None when the source is gone, disabled or being
    polled by another worker. A failed feed moves the next poll back (backoff_delay)."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.FACTCHECK_SOURCE_POLL_TIME_LIMIT)
    claimed = (
        Source.objects.filter(pk=source_id, enabled=True)
        .filter(Q(polling_since__isnull=True) | Q(polling_since__lt=stale))
        .update(polling_since=now, last_polled_at=now)
    )
    if claimed != 1:
        return None
    source = Source.objects.get(pk=source_id)
    # A poll still "running" lost its worker (this one took the source over after the limit).
    SourcePoll.objects.filter(source=source, status=SourcePoll.Status.RUNNING).update(
        status=SourcePoll.Status.FAILED, error="The worker stopped during this poll.", finished_at=now
    )
    poll = SourcePoll.objects.create(source=source)
    fetcher = fetcher or fetcher_create()
    try:
        accept = PAGE_ACCEPT if source.kind == Source.Kind.SECTION else FEED_ACCEPT
        result = fetcher.fetch(source.url, etag=source.etag, last_modified=source.last_modified, accept=accept)
        if result.not_modified:
            _poll_end(source=source, poll=poll, status=SourcePoll.Status.NOT_MODIFIED, result=result)
            return poll
        if source.kind == Source.Kind.SECTION:
            items = section_links(result.text(), base_url=result.url)
        elif source.kind == Source.Kind.CLAIMREVIEW_FEED:
            items = []
        else:
            items = feed_items(result.body, base_url=result.url)
        if source.feeds_library:
            _library_poll(source=source, poll=poll, result=result, items=items, fetcher=fetcher)
        else:
            _articles_poll(source=source, poll=poll, items=items, fetcher=fetcher)
    except FETCH_ERRORS as exc:
        _poll_fail(source=source, poll=poll, error=str(exc))
        return poll
    except BaseException as exc:
        _poll_fail(source=source, poll=poll, error=f"The poll stopped: {exc!r}")
        raise
    _poll_end(source=source, poll=poll, status=SourcePoll.Status.DONE, result=result)
    return poll


def _articles_poll(*, source: Source, poll: SourcePoll, items: list[FeedItem], fetcher: Fetcher) -> None:
    counts = _PollCounts()
    batch: ImportBatch | None = None
    fetched = 0
    known = urls_known([item.url for item in items])
    taken: set[str] = set()
    for item in items:
        counts.seen += 1
        key = url_key(item.url)
        if item.url in known or key in taken:
            counts.known += 1  # an old item the feed repeats (or lists twice): not fetched again
            continue
        taken.add(key)
        if fetched >= source.max_items:
            continue  # left for the next poll
        fetched += 1
        batch = batch or _batch_create(source=f"Source #{source.pk}: {source.name}")
        try:
            outcome = page_store(fetcher=fetcher, item=item, outlet=source.name, batch=batch, checked=True)
        except FETCH_ERRORS as exc:
            counts.fail(item.url, str(exc))
            continue
        except ValidationError as exc:
            counts.fail(item.url, "; ".join(exc.messages))
            continue
        (counts.new_ids if outcome.created else counts.duplicate_ids).append(outcome.article.pk)
    run = None
    if batch is not None:
        _batch_close(
            batch, read=fetched, stored=len(counts.new_ids), duplicate=len(counts.duplicate_ids), rejected=len(counts.errors),
            errors=[{"row": number, "where": error["url"], "reason": error["reason"]} for number, error in enumerate(counts.errors, start=1)],
        )
        # One run for the poll: its new articles, and copies found again that no run processed.
        run_ids = counts.new_ids + article_ids_unscheduled(counts.duplicate_ids)
        run = run_create(article_ids=run_ids, import_batch=batch) if run_ids else None
    SourcePoll.objects.filter(pk=poll.pk).update(
        items_seen=counts.seen, items_known=counts.known + len(counts.duplicate_ids), articles_new=len(counts.new_ids),
        items_failed=len(counts.errors), errors=counts.errors[:MAX_LISTED_ERRORS], import_batch=batch, run=run,
    )


def _library_poll(*, source: Source, poll: SourcePoll, result: FetchResult, items: list[FeedItem], fetcher: Fetcher) -> None:
    """ClaimReviews into the library through its importer (its per-row errors, its keys:
    a ClaimReview seen again changes nothing)."""
    counts = _PollCounts()
    if source.kind == Source.Kind.CLAIMREVIEW_FEED:
        body = result.body
    else:
        reviews: list[dict[str, object]] = []
        fetched = 0
        for item in items:
            counts.seen += 1
            if FactCheck.objects.filter(url=item.url).exists():
                counts.known += 1
                continue
            if fetched >= source.max_items:
                continue
            fetched += 1
            try:
                page = fetcher.fetch(item.url, accept=PAGE_ACCEPT)
                _require_html(page)
                found = claim_reviews(page.text())
            except FETCH_ERRORS as exc:
                counts.fail(item.url, str(exc))
                continue
            if not found:
                counts.fail(item.url, "No ClaimReview in the page's JSON-LD.")
            reviews.extend({**review, "url": review.get("url") or item.url} for review in found)
        body = json.dumps(reviews, ensure_ascii=False).encode("utf-8") if reviews else b""
    factcheck_import = None
    if body.strip():
        with tempfile.TemporaryDirectory(prefix="factcheck-source-") as directory:
            path = Path(directory) / f"source-{source.pk}-poll-{poll.pk}.json"
            path.write_bytes(body)
            try:
                factcheck_import = factchecks_import_file(path=path, publisher=source.name)
            except ImportFileError as exc:
                raise ExtractError(str(exc)) from None
        if factcheck_import.error:
            raise ExtractError(factcheck_import.error)
    SourcePoll.objects.filter(pk=poll.pk).update(
        items_seen=counts.seen or (factcheck_import.rows_read if factcheck_import else 0), items_known=counts.known,
        articles_new=factcheck_import.rows_created + factcheck_import.rows_updated if factcheck_import else 0, items_failed=len(counts.errors),
        errors=counts.errors[:MAX_LISTED_ERRORS], factcheck_import=factcheck_import,
    )


def _poll_end(*, source: Source, poll: SourcePoll, status: str, result: FetchResult) -> None:
    now = timezone.now()
    SourcePoll.objects.filter(pk=poll.pk).update(status=status, finished_at=now)
    Source.objects.filter(pk=source.pk).update(
        polling_since=None, consecutive_failures=0, last_success_at=now, next_poll_at=now + backoff_delay(source=source, failures=0),
        etag=result.etag[:500] if not result.not_modified else (result.etag[:500] or source.etag),
        last_modified=result.last_modified[:100] if not result.not_modified else (result.last_modified[:100] or source.last_modified),
    )
    poll.refresh_from_db()


def _poll_fail(*, source: Source, poll: SourcePoll, error: str) -> None:
    now = timezone.now()
    failures = source.consecutive_failures + 1
    SourcePoll.objects.filter(pk=poll.pk).update(status=SourcePoll.Status.FAILED, error=error[:2000], finished_at=now)
    Source.objects.filter(pk=source.pk).update(
        polling_since=None, consecutive_failures=failures, last_error=error[:2000], last_error_at=now,
        next_poll_at=now + backoff_delay(source=source, failures=failures),
    )
    poll.refresh_from_db()


def sources_due_send() -> list[int]:
    """Send a poll task for every enabled source that is due (Celery beat calls this every
    minute). Each due source's next poll moves one interval ahead as its message is sent,
    so a poll still waiting in the queue is not sent twice; the poll itself sets the real
    next time when it ends."""
    from factcheck.sources.tasks import source_poll_run

    now = timezone.now()
    sent: list[int] = []
    # A source whose poll outlived the poll's time limit lost its worker: it is due again too.
    stale = now - timedelta(seconds=settings.FACTCHECK_SOURCE_POLL_TIME_LIMIT)
    due = (
        Source.objects.filter(enabled=True)
        .filter(Q(polling_since__isnull=True) | Q(polling_since__lt=stale))
        .filter(Q(next_poll_at__isnull=True) | Q(next_poll_at__lte=now))
    )
    for source in due.order_by("next_poll_at", "pk").only("pk", "next_poll_at", "poll_minutes"):
        lease = now + timedelta(minutes=source.poll_minutes)
        if Source.objects.filter(pk=source.pk, next_poll_at=source.next_poll_at).update(next_poll_at=lease) != 1:
            continue  # another beat sent it
        if not task_send(source_poll_run, args=(source.pk,), queue=settings.CELERY_TASK_DEFAULT_QUEUE):
            Source.objects.filter(pk=source.pk, next_poll_at=lease).update(next_poll_at=source.next_poll_at)
            break  # the broker is down: the next beat tries again
        sent.append(source.pk)
    return sent


def source_poll_now(*, source: Source) -> Source:
    """An admin's "poll now": the source is due at once (beat sends it within a minute),
    and a source backing off starts over."""
    Source.objects.filter(pk=source.pk).update(next_poll_at=timezone.now(), enabled=True)
    source.refresh_from_db()
    return source


# --- Pasted links --------------------------------------------------------------------------


def link_submit(*, url: str, created_by: User) -> LinkSubmission:
    """A reviewer's link: recognised at once when its article is stored, else queued for a
    worker to fetch. FetchRefused for an address that is not fetched (not http(s), not a
    public address), so nothing is queued for it."""
    url = url.strip()
    fetcher = Fetcher(allowed_hosts=allowed_hosts())
    known = article_known(urls=[url])
    if known is None:
        try:
            fetcher.check_url(url)
        except FetchFailed as exc:
            raise FetchRefused(str(exc)) from None
    with transaction.atomic():
        link = LinkSubmission(url=url, created_by=created_by)
        link.full_clean()
        if known is not None:
            link.status, link.article, link.already_stored, link.finished_at = LinkSubmission.Status.DONE, known, True, timezone.now()
            link.save()
            if unscheduled := article_ids_unscheduled([known.pk]):
                link.run = run_create(article_ids=unscheduled, created_by=created_by)
                link.save(update_fields=["run"])
            return link
        link.save()
        transaction.on_commit(lambda: _link_send(link.pk))
    return link


def _link_send(link_id: int) -> bool:
    from factcheck.sources.tasks import link_fetch

    queued = LinkSubmission.objects.filter(status=LinkSubmission.Status.QUEUED)
    return queued_row_send(link_fetch, queued=queued, pk=link_id, queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=QUEUE_UNAVAILABLE)


def links_resend() -> list[int]:
    """Send the queued links whose message could not be sent, and those whose worker died
    while fetching (beat calls this)."""
    from factcheck.sources.tasks import link_fetch

    stale = timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    orphaned = LinkSubmission.objects.filter(status=LinkSubmission.Status.FETCHING, fetching_since__lt=stale)
    for pk in orphaned.values_list("pk", flat=True):
        if not task_send(link_fetch, args=(pk,), queue=settings.CELERY_TASK_DEFAULT_QUEUE):
            break
    queued = LinkSubmission.objects.filter(status=LinkSubmission.Status.QUEUED)
    return queued_rows_resend(link_fetch, queued=queued, queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=QUEUE_UNAVAILABLE)


def link_process(*, link_id: int, fetcher: Fetcher | None = None) -> LinkSubmission | None:
    """Fetch, extract and store a pasted link's article and queue its run. Idempotent: only
    a queued link is claimed (a redelivered message finds it fetching or done)."""
    now = timezone.now()
    # A link "fetching" for longer than the task's hard limit lost its worker: it is taken over.
    stale = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    claimable = Q(status=LinkSubmission.Status.QUEUED) | Q(status=LinkSubmission.Status.FETCHING, fetching_since__lt=stale)
    if LinkSubmission.objects.filter(claimable, pk=link_id).update(status=LinkSubmission.Status.FETCHING, fetching_since=now, error="") != 1:
        return LinkSubmission.objects.filter(pk=link_id).first()
    link = LinkSubmission.objects.select_related("created_by").get(pk=link_id)
    fetcher = fetcher or fetcher_create()
    batch = _batch_create(source=f"Link #{link.pk}: {link.url}", created_by=link.created_by)
    try:
        outcome = page_store(fetcher=fetcher, item=FeedItem(url=link.url), outlet="", batch=batch)
    except FETCH_ERRORS as exc:
        return _link_fail(link=link, batch=batch, error=str(exc))
    except ValidationError as exc:
        return _link_fail(link=link, batch=batch, error="; ".join(exc.messages))
    except BaseException as exc:
        _link_fail(link=link, batch=batch, error=f"Fetching stopped: {exc!r}")
        raise
    with transaction.atomic():
        _batch_close(batch, read=1, stored=int(outcome.created), duplicate=int(not outcome.created), rejected=0, errors=[])
        run_ids = [outcome.article.pk] if outcome.created else article_ids_unscheduled([outcome.article.pk])
        run = run_create(article_ids=run_ids, import_batch=batch, created_by=link.created_by) if run_ids else None
        LinkSubmission.objects.filter(pk=link.pk).update(
            status=LinkSubmission.Status.DONE, article=outcome.article, already_stored=not outcome.created,
            import_batch=batch, run=run, finished_at=timezone.now(),
        )
    link.refresh_from_db()
    return link


def _link_fail(*, link: LinkSubmission, batch: ImportBatch, error: str) -> LinkSubmission:
    _batch_close(batch, read=1, stored=0, duplicate=0, rejected=1, errors=[{"row": 1, "where": link.url[:500], "reason": error[:500]}])
    LinkSubmission.objects.filter(pk=link.pk).update(status=LinkSubmission.Status.FAILED, error=error[:2000], import_batch=batch, finished_at=timezone.now())
    link.refresh_from_db()
    return link

