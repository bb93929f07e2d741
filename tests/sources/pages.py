"""One of each sources page's objects, for the page checks (tests/e2e/test_accessibility.py)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from factcheck.articles.models import Article
from factcheck.sources.models import LinkSubmission, Source, SourcePoll


def a_source() -> Source:
    """A source that failed after a success: the page shows both, its backoff and its polls."""
    now = timezone.now()
    source, _ = Source.objects.get_or_create(
        url="https://news.example/world/rss.xml",
        defaults={
            "name": "News Example", "last_success_at": now - timedelta(hours=2), "last_error_at": now - timedelta(minutes=5),
            "last_error": "https://news.example/world/rss.xml answered 503.", "consecutive_failures": 2, "next_poll_at": now + timedelta(hours=1),
        },
    )
    SourcePoll.objects.get_or_create(source=source, status=SourcePoll.Status.FAILED, defaults={"error": source.last_error})
    SourcePoll.objects.get_or_create(
        source=source, status=SourcePoll.Status.DONE,
        defaults={"items_seen": 3, "items_failed": 1, "articles_new": 2, "errors": [{"url": "https://news.example/x", "reason": "robots.txt forbids it"}]},
    )
    return source


def a_link() -> LinkSubmission:
    article = Article.objects.order_by("pk").first()
    link, _ = LinkSubmission.objects.get_or_create(
        url="https://news.example/world/story-1",
        defaults={"status": LinkSubmission.Status.DONE, "article": article, "already_stored": article is not None, "finished_at": timezone.now()},
    )
    return link
