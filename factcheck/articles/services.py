"""Writes for articles and imports. Idempotent: the same text is one article."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, connection, transaction
from django.db.models import Field, Model, Q
from django.utils import timezone

from factcheck.articles.models import Article, ImportBatch, Outlet
from factcheck.articles.readers import ReadPosition, SourceRow, detect_format, read_rows
from factcheck.articles.rows import PreparedArticle, prepare_article
from factcheck.queueing import queued_row_send, queued_rows_resend
from factcheck.runs.models import PipelineRun, PipelineRunArticle
from factcheck.runs.selectors import article_ids_unscheduled
from factcheck.runs.services import run_create
from factcheck.uploads import (
    ChunkRow,
    batch_create,
    batch_fail,
    chunk_record,
    file_import,
    import_process,
    row_errors,
    row_prepare,
    rows_import,
    upload_delete,
    upload_start,
)
from pipeline.text import content_hash, normalise_text

logger = logging.getLogger(__name__)


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
    url = data.url.strip()
    existing = Article.objects.filter(content_hash=digest).first()
    if existing is None and url:
        existing = Article.objects.filter(url=url).first()
    if existing is not None:
        return existing, False
    if data.published_at is not None and timezone.is_naive(data.published_at):
        raise ValidationError({"published_at": "Dates must carry a time zone."})
    article = Article(
        outlet=outlet_get_or_create(name=data.outlet),
        title=data.title.strip()[:500],
        url=url,
        author=data.author.strip()[:300],
        published_at=data.published_at,
        text=text,
        content_hash=digest,
        metadata=data.metadata,
        import_batch=batch,
    )
    article.full_clean()
    # A concurrent import of the same text or url may win the race; the unique indexes decide.
    try:
        with transaction.atomic():
            article.save()
    except IntegrityError:
        return Article.objects.filter(Q(content_hash=digest) | Q(url=url) if url else Q(content_hash=digest)).get(), False
    return article, True


@transaction.atomic
def articles_import(
    *, source: str, articles: Iterable[ArticleInput], created_by: User | None = None
) -> ImportResult:
    """Import articles as one batch and queue a pipeline run over the new ones only."""
    batch = ImportBatch(source=source[:500], created_by=created_by if created_by and created_by.is_authenticated else None)
    batch.full_clean()
    batch.save()
    new_ids: list[int] = []
    duplicate_ids: list[int] = []
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
            duplicate_ids.append(article.pk)
    batch.errors = errors
    batch.status = ImportBatch.Status.DONE
    batch.finished_at = timezone.now()
    batch.save()
    # Duplicates that no run has processed (theirs failed) are scheduled again with the new ones.
    run_ids = new_ids + article_ids_unscheduled(duplicate_ids)
    run = run_create(article_ids=run_ids, import_batch=batch, created_by=created_by) if run_ids else None
    return ImportResult(batch=batch, new_article_ids=new_ids, run=run)


# --- Bulk import: files streamed in chunks ----------------------------------------------------
# The upload, the chunks, the resume point and the per-row errors are factcheck.uploads', shared
# with the fact-check library's import; what is the articles' own is here: a row's checks
# (rows.prepare_article), a chunk's one INSERT of its new articles (each row whole or absent;
# the unique hash and url make any overlap with an earlier attempt a duplicate, never a copy),
# and the pipeline run over what the import stored.

IMPORT_LOCK_KEY = 0x46430000_00000000  # pg advisory lock key space for import batches: "FC" << 48
ProgressCallback = Callable[[ImportBatch], None]

_ARTICLE_COLUMNS = ("outlet", "title", "url", "author", "published_at", "text", "content_hash", "metadata", "import_batch", "created_at")


def _column(model: type[Model], name: str) -> str:
    field = model._meta.get_field(name)
    assert isinstance(field, Field) and field.column is not None, f"{model.__name__}.{name} is not a column"
    return field.column


def _insert_articles_sql() -> str:
    columns = ", ".join(_column(Article, name) for name in _ARTICLE_COLUMNS)
    return (
        f"INSERT INTO {Article._meta.db_table} ({columns}) "
        "SELECT o, ti, u, a, p, tx, h, m::jsonb, %s, %s FROM unnest("
        "%s::bigint[], %s::text[], %s::text[], %s::text[], %s::timestamptz[], %s::text[], %s::text[], %s::text[]"
        ") AS t(o, ti, u, a, p, tx, h, m) ON CONFLICT DO NOTHING RETURNING id"
    )


def _held_chars(article: PreparedArticle) -> int:
    # What the prepared row holds, about: its text and metadata (characters, not bytes, which
    # is close enough for a cap and costs nothing to count).
    return len(article.text) + len(article.metadata_json)


def _row_prepare(row: SourceRow, *, default_outlet: str, max_text_chars: int) -> ChunkRow[PreparedArticle]:
    return row_prepare(
        row, lambda fields: prepare_article(fields, default_outlet=default_outlet, max_text_chars=max_text_chars), noun="row", label="Import"
    )


def _outlet_ids(names: set[str], cache: dict[str, int]) -> None:
    missing = {name for name in names if name and name not in cache}
    if not missing:
        return
    Outlet.objects.bulk_create([Outlet(name=name) for name in sorted(missing)], ignore_conflicts=True)
    cache.update(Outlet.objects.filter(name__in=missing).values_list("name", "id"))


def _url_conflict(
    article: PreparedArticle, batch: ImportBatch, first_row_of_url: dict[str, int], stored_by_url: Mapping[str, tuple[int, str, str, int | None]]
) -> str:
    """Why a row whose url is already taken by another text is not imported, or ''."""
    if article.url in first_row_of_url:
        return f"Same url as row {first_row_of_url[article.url]} of this file, with another text: not imported."
    stored = stored_by_url.get(article.url)
    if stored is None:
        return ""
    if stored[3] == batch.pk:
        return "Same url as an earlier row of this file, with another text: not imported."
    return f"This url is already stored (article #{stored[0]}) with another text: not imported."


@transaction.atomic
def _chunk_store(*, batch: ImportBatch, rows: list[ChunkRow[PreparedArticle]], bytes_read: int, outlet_cache: dict[str, int]) -> None:
    errors = row_errors(rows)
    prepared = [item.prepared for item in rows if item.prepared is not None]
    hashes = {article.content_hash for article in prepared}
    urls = {article.url for article in prepared if article.url}
    stored = list(
        Article.objects.filter(Q(content_hash__in=hashes) | Q(url__in=urls)).values_list("id", "content_hash", "url", "import_batch_id")
    )
    stored_hashes = {row[1] for row in stored}
    stored_by_url = {row[2]: row for row in stored if row[2]}
    # Duplicates of earlier imports that no run has processed (theirs failed) are scheduled
    # again, chunk by chunk; this batch's own articles get their run when it ends.
    if unscheduled := article_ids_unscheduled(row[0] for row in stored if row[3] != batch.pk):
        run_create(article_ids=unscheduled, import_batch=batch, created_by=batch.created_by)
    new: list[PreparedArticle] = []
    seen_hashes: set[str] = set()
    first_row_of_url: dict[str, int] = {}
    for item in rows:
        article = item.prepared
        if article is None:
            continue
        if article.content_hash in seen_hashes or article.content_hash in stored_hashes:
            continue  # the same text again: a duplicate, counted
        if article.url and (conflict := _url_conflict(article, batch, first_row_of_url, stored_by_url)):
            # Another text under a known address: the stored article is kept, and this row is
            # listed rather than counted as a duplicate, so an edited text is never lost in silence.
            errors.append({"row": item.number, "where": item.where, "reason": conflict})
            continue
        seen_hashes.add(article.content_hash)
        if article.url:
            first_row_of_url[article.url] = item.number
        new.append(article)
    inserted = 0
    if new:
        _outlet_ids({a.outlet for a in new}, outlet_cache)
        with connection.cursor() as cursor:
            cursor.execute(
                _insert_articles_sql(),
                [
                    batch.pk,
                    timezone.now(),
                    [outlet_cache.get(a.outlet) for a in new],
                    [a.title for a in new],
                    [a.url for a in new],
                    [a.author for a in new],
                    [a.published_at for a in new],
                    [a.text for a in new],
                    [a.content_hash for a in new],
                    [a.metadata_json for a in new],
                ],
            )
            # A concurrent import may have stored some of them since the check: ON CONFLICT
            # skipped those, and they count as duplicates.
            inserted = len(cursor.fetchall())
    counts = {
        "rows_read": batch.rows_read + len(rows),
        "rows_stored": batch.rows_stored + inserted,
        "rows_rejected": batch.rows_rejected + len(errors),
        "rows_duplicate": batch.rows_duplicate + len(rows) - len(errors) - inserted,
        "bytes_read": bytes_read,
    }
    chunk_record(batch=batch, counts=counts, errors=errors)


def _rows_import(*, batch: ImportBatch, rows: Iterator[SourceRow], position: ReadPosition, on_progress: ProgressCallback | None) -> None:
    max_text_chars = settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS
    outlet_cache: dict[str, int] = {}
    rows_import(
        batch=batch, rows=rows, position=position, on_progress=on_progress,
        prepare=lambda row: _row_prepare(row, default_outlet=batch.default_outlet, max_text_chars=max_text_chars),
        store=lambda chunk, bytes_read: _chunk_store(batch=batch, rows=chunk, bytes_read=bytes_read, outlet_cache=outlet_cache),
        held_chars=_held_chars,
    )


def _batch_finish(*, batch: ImportBatch, start_pipeline: bool) -> None:
    """Mark the batch done and queue one pipeline run over everything it stored, atomically."""
    if batch.rows_read == 0:
        batch_fail(batch=batch, error="The file holds no articles.", discard_upload=True)
        return
    with transaction.atomic():
        locked = ImportBatch.objects.select_for_update().get(pk=batch.pk)
        # A run of this batch over its own articles, not only over duplicates it rescheduled.
        own_run = PipelineRunArticle.objects.filter(run__import_batch=locked, article__import_batch=locked).exists()
        if start_pipeline and not own_run:
            # Every article this batch stored, over all its attempts: a resumed import runs
            # the pipeline on the rows stored before the interruption too.
            new_ids = list(Article.objects.filter(import_batch=locked).values_list("id", flat=True))
            if new_ids:
                run_create(article_ids=new_ids, import_batch=locked, created_by=locked.created_by)
        ImportBatch.objects.filter(pk=batch.pk).update(
            status=ImportBatch.Status.DONE, error="", finished_at=timezone.now(), upload_name=""
        )
    upload_delete(batch.upload_name)
    batch.refresh_from_db()


def _batch_read(batch: ImportBatch, stream: BinaryIO, position: ReadPosition, on_progress: ProgressCallback | None) -> None:
    rows = read_rows(stream, position, file_format=batch.format, name=batch.source, max_text_chars=settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS)
    _rows_import(batch=batch, rows=rows, position=position, on_progress=on_progress)


def import_batch_process(
    *, batch_id: int, path: Path | None = None, start_pipeline: bool = True, on_progress: ProgressCallback | None = None
) -> ImportBatch | None:
    """Import (or resume) a batch from its file. Idempotent: a finished batch is left alone,
    and a batch another process is working on is skipped (returns None)."""
    return import_process(
        model=ImportBatch, pk=batch_id, lock_key=IMPORT_LOCK_KEY, path=path,
        start=lambda source_path: {},
        read=lambda batch, stream, position: _batch_read(batch, stream, position, on_progress),
        finish=lambda batch: _batch_finish(batch=batch, start_pipeline=start_pipeline),
    )


def _batch_create(*, source: str, file_format: str, created_by: User | None, default_outlet: str = "", status: str, **fields: Any) -> ImportBatch:
    batch: ImportBatch = batch_create(
        ImportBatch, source=source, created_by=created_by, format=file_format, default_outlet=" ".join(default_outlet.split())[:200],
        status=status, **fields,
    )
    return batch


def articles_import_file(
    *,
    path: Path,
    created_by: User | None = None,
    default_outlet: str = "",
    start_pipeline: bool = True,
    on_progress: ProgressCallback | None = None,
) -> ImportBatch:
    """Import a file in this process (the command line). An unfinished batch of the same file
    is resumed rather than started over."""
    file_format = detect_format(path.name)
    batch: ImportBatch = file_import(
        model=ImportBatch, path=path, unfinished={"format": file_format}, what="Import",
        create=lambda sha256, size: _batch_create(
            source=path.name, file_format=file_format, created_by=created_by, default_outlet=default_outlet,
            status=ImportBatch.Status.QUEUED, file_sha256=sha256, file_size=size,
        ),
        process=lambda pk, source_path: import_batch_process(batch_id=pk, path=source_path, start_pipeline=start_pipeline, on_progress=on_progress),
    )
    return batch


def import_upload_start(*, uploaded: UploadedFile, created_by: User | None, default_outlet: str = "") -> ImportBatch:
    """Store an uploaded file as a new batch: small files import now, large ones in Celery."""
    file_format = detect_format(uploaded.name or "")
    batch: ImportBatch = upload_start(
        uploaded=uploaded,
        create=lambda upload_name, sha256, size: _batch_create(
            source=uploaded.name or "upload", file_format=file_format, created_by=created_by, default_outlet=default_outlet,
            status=ImportBatch.Status.QUEUED, upload_name=upload_name, file_sha256=sha256, file_size=size,
        ),
        process=lambda pk: import_batch_process(batch_id=pk),
        send=_batch_send,
    )
    return batch


QUEUE_UNAVAILABLE = "The task queue is unavailable: the import starts when it is back."


def _enqueue(batch_id: int) -> None:
    # The queue is read at commit time so a deployment (or a test) can re-route imports.
    transaction.on_commit(lambda: _batch_send(batch_id))


def _batch_send(batch_id: int) -> bool:
    from factcheck.articles.tasks import import_batch_run

    queued = ImportBatch.objects.filter(status=ImportBatch.Status.QUEUED)
    return queued_row_send(import_batch_run, queued=queued, pk=batch_id, queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=QUEUE_UNAVAILABLE)


def import_batches_resend() -> list[int]:
    """Send the queued batches whose message could not be sent (the reaper calls this)."""
    from factcheck.articles.tasks import import_batch_run

    queued = ImportBatch.objects.filter(status=ImportBatch.Status.QUEUED)
    return queued_rows_resend(import_batch_run, queued=queued, queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=QUEUE_UNAVAILABLE)


def import_batch_resume(*, batch: ImportBatch) -> ImportBatch:
    """Queue a failed batch whose upload is still stored; it goes on after its last chunk."""
    if batch.status != ImportBatch.Status.FAILED or not batch.upload_name:
        raise ValidationError("Only a failed import whose file is still stored can be resumed.")
    changed = ImportBatch.objects.filter(pk=batch.pk, status=ImportBatch.Status.FAILED).update(status=ImportBatch.Status.QUEUED, error="")
    if changed:
        _enqueue(batch.pk)
    batch.refresh_from_db()
    return batch


def import_text(*, fields: dict[str, str], created_by: User | None) -> ImportBatch:
    """One pasted article, through the same checks and writes as a file row."""
    batch = _batch_create(source="pasted text", file_format=ImportBatch.Format.TEXT, created_by=created_by, status=ImportBatch.Status.IMPORTING)
    row = SourceRow(1, dict(fields), "", "pasted text")
    _rows_import(batch=batch, rows=iter([row]), position=ReadPosition(), on_progress=None)
    _batch_finish(batch=batch, start_pipeline=True)
    return batch
