"""Writes for articles and imports. Idempotent: the same text is one article."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from factcheck.articles.models import Article, ImportBatch, Outlet
from factcheck.runs.models import PipelineRun
from factcheck.runs.services import run_create


def normalise_text(text: str) -> str:
    """NFC, \\n line ends, no trailing spaces on lines, no surrounding blank space.

    Claim offsets index the stored text, so the normalisation happens once, here.
    """
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ArticleInput:
    text: str
    title: str = ""
    url: str = ""
    outlet: str = ""
    author: str = ""
    published_at: datetime | None = None
    metadata: dict[str, object] = field(default_factory=dict)


@dataclass
class ImportResult:
    batch: ImportBatch
    new_article_ids: list[int]
    run: PipelineRun | None


def outlet_get_or_create(*, name: str) -> Outlet | None:
    name = " ".join(name.split())
    if not name:
        return None
    outlet, _ = Outlet.objects.get_or_create(name=name)
    return outlet


def article_ingest(*, data: ArticleInput, batch: ImportBatch | None) -> tuple[Article, bool]:
    """Store one article unless the same text is already stored. Returns (article, created)."""
    text = normalise_text(data.text)
    if not text:
        raise ValidationError({"text": "The article has no text."})
    digest = content_hash(text)
    existing = Article.objects.filter(content_hash=digest).first()
    if existing is not None:
        return existing, False
    if data.published_at is not None and timezone.is_naive(data.published_at):
        raise ValidationError({"published_at": "Dates must carry a time zone."})
    article = Article(
        outlet=outlet_get_or_create(name=data.outlet),
        title=data.title.strip()[:500],
        url=data.url.strip(),
        author=data.author.strip()[:300],
        published_at=data.published_at,
        text=text,
        content_hash=digest,
        metadata=data.metadata,
        import_batch=batch,
    )
    article.full_clean()
    # A concurrent import of the same text may win the race; the unique hash decides.
    try:
        with transaction.atomic():
            article.save()
    except IntegrityError:
        return Article.objects.get(content_hash=digest), False
    return article, True


@transaction.atomic
def articles_import(
    *, source: str, articles: Iterable[ArticleInput], created_by: AbstractBaseUser | None = None
) -> ImportResult:
    """Import articles as one batch and queue a pipeline run over the new ones only."""
    batch = ImportBatch(source=source[:500], created_by=created_by if created_by and created_by.is_authenticated else None)
    batch.full_clean()
    batch.save()
    new_ids: list[int] = []
    errors: list[dict[str, object]] = []
    for row_number, data in enumerate(articles, start=1):
        batch.rows_read += 1
        try:
            article, created = article_ingest(data=data, batch=batch)
        except ValidationError as exc:
            batch.rows_rejected += 1
            errors.append({"row": row_number, "reason": "; ".join(exc.messages)})
            continue
        if created:
            batch.rows_stored += 1
            new_ids.append(article.pk)
        else:
            batch.rows_duplicate += 1
    batch.errors = errors
    batch.status = ImportBatch.Status.DONE
    batch.finished_at = timezone.now()
    batch.save()
    run = run_create(article_ids=new_ids, import_batch=batch, created_by=created_by) if new_ids else None
    return ImportResult(batch=batch, new_article_ids=new_ids, run=run)
