"""Reads for the sources pages and a pasted link's progress page."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db.models import Count
from django.db.models.functions import Coalesce, TruncDate
from django.utils import timezone

from factcheck.articles.models import Article
from factcheck.claims.models import Claim
from factcheck.runs.selectors import RunProgress, run_progress
from factcheck.sources.models import LinkSubmission, Source, SourcePoll

DAYS_SHOWN = 14
POLLS_SHOWN = 20


def sources_overview() -> list[Source]:
    """Every source with `articles_week`: its articles published (else stored) in the last 7 days."""
    since = timezone.now() - timedelta(days=7)
    sources = list(Source.objects.all())
    counts = dict(
        SourcePoll.objects.filter(import_batch__articles__isnull=False)
        .annotate(day=Coalesce("import_batch__articles__published_at", "import_batch__articles__created_at"))
        .filter(day__gte=since)
        .values("source_id")
        .annotate(n=Count("import_batch__articles"))
        .values_list("source_id", "n")
    )
    for source in sources:
        source.articles_week = counts.get(source.pk, 0)  # type: ignore[attr-defined]
    return sources


@dataclass(frozen=True)
class SourcePage:
    source: Source
    polls: list[SourcePoll]
    days: list[tuple[date, int]]
    articles_total: int
    now: datetime

    @property
    def per_day(self) -> float:
        return sum(count for _, count in self.days) / len(self.days) if self.days else 0.0

    @property
    def next_poll_in(self) -> timedelta | None:
        if self.source.next_poll_at is None:
            return None
        return max(self.source.next_poll_at - self.now, timedelta(0))


def source_page(*, source_id: int) -> SourcePage | None:
    source = Source.objects.filter(pk=source_id).first()
    if source is None:
        return None
    now = timezone.now()
    first_day = (now - timedelta(days=DAYS_SHOWN - 1)).date()
    articles = Article.objects.filter(import_batch__in=SourcePoll.objects.filter(source_id=source_id, import_batch__isnull=False).values("import_batch"))
    by_day = dict(
        articles.annotate(day=TruncDate(Coalesce("published_at", "created_at")))
        .filter(day__gte=first_day)
        .values("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    days = [(first_day + timedelta(days=offset), by_day.get(first_day + timedelta(days=offset), 0)) for offset in range(DAYS_SHOWN)]
    polls = list(SourcePoll.objects.filter(source_id=source_id).select_related("run").order_by("-started_at", "-id")[:POLLS_SHOWN])
    return SourcePage(source=source, polls=polls, days=days, articles_total=articles.count(), now=now)


@dataclass(frozen=True)
class LinkProgress:
    link: LinkSubmission
    run: RunProgress | None
    claims: int | None

    @property
    def is_live(self) -> bool:
        return not self.link.is_finished or (self.run is not None and not self.run.run.is_finished)


def link_progress(*, link_id: int) -> LinkProgress | None:
    link = LinkSubmission.objects.select_related("article", "run", "created_by").filter(pk=link_id).first()
    if link is None:
        return None
    progress = run_progress(run=link.run) if link.run is not None else None
    claims = Claim.objects.filter(article_id=link.article_id).count() if link.article_id and (link.run is None or link.run.is_finished) else None
    return LinkProgress(link=link, run=progress, claims=claims)


def links_recent(*, user_id: int, limit: int = 10) -> list[LinkSubmission]:
    return list(LinkSubmission.objects.filter(created_by_id=user_id).select_related("article").order_by("-created_at", "-id")[:limit])
