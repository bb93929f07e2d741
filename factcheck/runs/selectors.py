"""Reads for pipeline runs."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Exists, OuterRef, QuerySet

from factcheck.articles.models import Article
from factcheck.runs.models import PipelineRun, PipelineRunArticle


def _in_run(statuses: Iterable[str]) -> Exists:
    return Exists(PipelineRunArticle.objects.filter(article_id=OuterRef("pk"), run__status__in=list(statuses)))


def articles_unprocessed() -> QuerySet[Article]:
    """Articles no run has processed: every run over them failed (or none was made)."""
    return Article.objects.filter(~_in_run([PipelineRun.Status.SUCCEEDED]))


def article_ids_unscheduled(article_ids: Iterable[int]) -> list[int]:
    """Of these articles, the unprocessed ones that no queued or running run will process:
    what an import of them again, or an admin, should schedule."""
    ids = list(article_ids)
    if not ids:
        return []
    pending = _in_run([PipelineRun.Status.QUEUED, PipelineRun.Status.RUNNING])
    return list(articles_unprocessed().filter(pk__in=ids).filter(~pending).order_by("pk").values_list("pk", flat=True))
