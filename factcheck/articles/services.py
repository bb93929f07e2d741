"""Writes for articles and imports. Idempotent: the same text is one article."""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, connection, transaction
from django.db.models import Field, Model, Q
from django.utils import timezone

from factcheck.articles.models import Article, ImportBatch, Outlet
from factcheck.articles.readers import ImportFileError, ReadPosition, SourceRow, detect_format, read_rows
from factcheck.articles.rows import ROW_VALUE_ERRORS, PreparedArticle, RowError, prepare_article
from factcheck.queueing import queued_row_send, queued_rows_resend
from factcheck.runs.models import PipelineRun, PipelineRunArticle
from factcheck.runs.selectors import article_ids_unscheduled
from factcheck.runs.services import run_create
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
# Each chunk of rows is one transaction that inserts its new articles (one INSERT, each row
# whole or absent) and moves the batch's counters, which double as the resume point. A crash
# loses at most the chunk in flight; running the same batch again starts after the last
# committed chunk, and the unique hash and url make any overlap a duplicate, never a copy.

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


@dataclass(frozen=True)
class _ChunkRow:
    """What a chunk keeps of a row until it is stored: the prepared article, or where the
    row was and why it was rejected. Never the raw row: a rejected row's text (up to a
    physical line's cap, megabytes) would otherwise stay in memory for the whole chunk."""

    number: int
    where: str
    article: PreparedArticle | None
    error: str

    @property
    def held_bytes(self) -> int:
        # What the prepared row holds, about: its text and metadata (characters, not bytes,
        # which is close enough for a cap and costs nothing to count).
        return 0 if self.article is None else len(self.article.text) + len(self.article.metadata_json)


def _row_prepare(row: SourceRow, *, default_outlet: str, max_text_chars: int) -> _ChunkRow:
    if row.fields is None:
        return _ChunkRow(row.number, row.where, None, row.error)
    try:
        article = prepare_article(row.fields, default_outlet=default_outlet, max_text_chars=max_text_chars)
    except RowError as exc:
        return _ChunkRow(row.number, row.where, None, str(exc))
    except ROW_VALUE_ERRORS as exc:
        # A value no check foresaw fails its row, never the file's good rows; a crash (disk,
        # database, memory) is not a value's fault and stops the import, to resume.
        logger.exception("Import row %s (%s) could not be prepared", row.number, row.where)
        return _ChunkRow(row.number, row.where, None, f"This row could not be read ({type(exc).__name__}).")
    return _ChunkRow(row.number, row.where, article, "")


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
def _chunk_store(*, batch: ImportBatch, rows: list[_ChunkRow], bytes_read: int, outlet_cache: dict[str, int]) -> None:
    errors = [
        {"row": item.number, "where": item.where, "reason": item.error} for item in rows if item.article is None
    ]
    prepared = [item for item in rows if item.article is not None]
    hashes = {item.article.content_hash for item in prepared if item.article}
    urls = {item.article.url for item in prepared if item.article and item.article.url}
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
    for item in prepared:
        article = item.article
        assert article is not None
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
    errors.sort(key=lambda error: int(str(error["row"])))
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
    listed = min(batch.rows_rejected, settings.FACTCHECK_IMPORT_MAX_LISTED_ERRORS)
    new_errors = errors[: max(0, settings.FACTCHECK_IMPORT_MAX_LISTED_ERRORS - listed)]
    counts = {
        "rows_read": batch.rows_read + len(rows),
        "rows_stored": batch.rows_stored + inserted,
        "rows_rejected": batch.rows_rejected + len(errors),
        "rows_duplicate": batch.rows_duplicate + len(rows) - len(errors) - inserted,
        "bytes_read": bytes_read,
    }
    with connection.cursor() as cursor:
        # Appending in SQL: the error list is never read back into this process.
        cursor.execute(
            f"UPDATE {ImportBatch._meta.db_table} SET rows_read = %s, rows_stored = %s, rows_rejected = %s, "
            "rows_duplicate = %s, bytes_read = %s, errors = errors || %s::jsonb WHERE id = %s",
            [*counts.values(), json.dumps(new_errors), batch.pk],
        )
    for name, value in counts.items():
        setattr(batch, name, value)


def _rows_import(*, batch: ImportBatch, rows: Iterator[SourceRow], position: ReadPosition, on_progress: ProgressCallback | None) -> None:
    chunk_size = settings.FACTCHECK_IMPORT_CHUNK_ROWS
    chunk_max_chars = settings.FACTCHECK_IMPORT_CHUNK_MAX_CHARS
    max_text_chars = settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS
    resume_after = batch.rows_read
    outlet_cache: dict[str, int] = {}
    chunk: list[_ChunkRow] = []
    held = 0
    for row in rows:
        if row.number <= resume_after:
            continue  # stored or reported by an earlier attempt at this batch
        item = _row_prepare(row, default_outlet=batch.default_outlet, max_text_chars=max_text_chars)
        del row  # the raw row (its text) goes now, not when the next one replaces it
        chunk.append(item)
        held += item.held_bytes
        # A chunk ends at its row count or at its text budget, whichever comes first: a chunk
        # of long articles would otherwise hold (and send in one INSERT) gigabytes.
        if len(chunk) >= chunk_size or held >= chunk_max_chars:
            _chunk_store(batch=batch, rows=chunk, bytes_read=position.bytes, outlet_cache=outlet_cache)
            chunk = []
            held = 0
            if on_progress is not None:
                on_progress(batch)
    if chunk:
        _chunk_store(batch=batch, rows=chunk, bytes_read=position.bytes, outlet_cache=outlet_cache)
    if on_progress is not None:
        on_progress(batch)


def _batch_fail(*, batch: ImportBatch, error: str, discard_upload: bool) -> None:
    fields: dict[str, object] = {"status": ImportBatch.Status.FAILED, "error": error, "finished_at": timezone.now()}
    if discard_upload:
        upload_delete(batch.upload_name)
        fields["upload_name"] = ""
    ImportBatch.objects.filter(pk=batch.pk).update(**fields)
    batch.refresh_from_db()


def _batch_finish(*, batch: ImportBatch, start_pipeline: bool) -> None:
    """Mark the batch done and queue one pipeline run over everything it stored, atomically."""
    if batch.rows_read == 0:
        _batch_fail(batch=batch, error="The file holds no articles.", discard_upload=True)
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


def _batch_lock(batch_id: int) -> AbstractContextManager[bool]:
    return advisory_lock(IMPORT_LOCK_KEY + batch_id)


@contextmanager
def advisory_lock(key: int) -> Iterator[bool]:
    """A session-level advisory lock: one process works on an import at a time, and a crashed
    one releases it with its connection, so a redelivered task can take over."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        held = bool(cursor.fetchone()[0])
    try:
        yield held
    finally:
        if held:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


def upload_path(upload_name: str) -> Path:
    return Path(settings.FACTCHECK_UPLOAD_DIR) / upload_name


def upload_delete(upload_name: str) -> None:
    if upload_name:
        upload_path(upload_name).unlink(missing_ok=True)


def import_batch_process(
    *, batch_id: int, path: Path | None = None, start_pipeline: bool = True, on_progress: ProgressCallback | None = None
) -> ImportBatch | None:
    """Import (or resume) a batch from its file. Idempotent: a finished batch is left alone,
    and a batch another process is working on is skipped (returns None)."""
    batch = ImportBatch.objects.filter(pk=batch_id).first()
    if batch is None or batch.status == ImportBatch.Status.DONE:
        return batch
    with _batch_lock(batch_id) as held:
        if not held:
            return None
        batch.refresh_from_db()
        if batch.status == ImportBatch.Status.DONE:
            return batch
        source_path = path or (upload_path(batch.upload_name) if batch.upload_name else None)
        if source_path is None or not source_path.is_file():
            _batch_fail(batch=batch, error="The file to import is gone; upload it again.", discard_upload=True)
            return batch
        ImportBatch.objects.filter(pk=batch.pk).update(status=ImportBatch.Status.IMPORTING, error="", finished_at=None)
        batch.status = ImportBatch.Status.IMPORTING
        position = ReadPosition()
        try:
            with open(source_path, "rb") as stream:
                rows = read_rows(
                    stream, position, file_format=batch.format, name=batch.source, max_text_chars=settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS
                )
                _rows_import(batch=batch, rows=rows, position=position, on_progress=on_progress)
        except ImportFileError as exc:
            _batch_fail(batch=batch, error=str(exc), discard_upload=True)
            return batch
        except BaseException as exc:
            # Keep the file: the rows stored so far are committed and a re-run resumes after them.
            _batch_fail(batch=batch, error=f"Stopped after row {batch.rows_read}: {exc!r}. Run it again to resume.", discard_upload=False)
            raise
        _batch_finish(batch=batch, start_pipeline=start_pipeline)
    return batch


def _batch_create(
    *, source: str, file_format: str, created_by: User | None, default_outlet: str = "", status: str, **fields: Any
) -> ImportBatch:
    batch = ImportBatch(
        source=source[:500],
        format=file_format,
        default_outlet=" ".join(default_outlet.split())[:200],
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
        status=status,
        **fields,
    )
    batch.full_clean()
    batch.save()
    return batch


def file_digest(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while block := handle.read(1024 * 1024):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


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
    sha256, size = file_digest(path)
    batch = (
        ImportBatch.objects.filter(file_sha256=sha256, format=file_format, upload_name="")
        .exclude(status=ImportBatch.Status.DONE)
        .order_by("-created_at")
        .first()
    )
    if batch is None:
        batch = _batch_create(
            source=path.name, file_format=file_format, created_by=created_by, default_outlet=default_outlet,
            status=ImportBatch.Status.QUEUED, file_sha256=sha256, file_size=size,
        )
    result = import_batch_process(batch_id=batch.pk, path=path, start_pipeline=start_pipeline, on_progress=on_progress)
    if result is None:
        raise ImportFileError(f"Import #{batch.pk} of this file is running in another process.")
    return result


def upload_store(uploaded: UploadedFile) -> tuple[str, str, int]:
    """Copy an upload under FACTCHECK_UPLOAD_DIR chunk by chunk; returns (name, sha256, size)."""
    directory = Path(settings.FACTCHECK_UPLOAD_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    name = f"{uuid.uuid4().hex}{PurePosixPath(uploaded.name or '').suffix.lower()[:10]}"
    digest = hashlib.sha256()
    size = 0
    with open(directory / name, "wb") as target:
        for block in uploaded.chunks():
            digest.update(block)
            size += len(block)
            target.write(block)
    return name, digest.hexdigest(), size


def import_upload_start(*, uploaded: UploadedFile, created_by: User | None, default_outlet: str = "") -> ImportBatch:
    """Store an uploaded file as a new batch: small files import now, large ones in Celery."""
    file_format = detect_format(uploaded.name or "")
    upload_name, sha256, size = upload_store(uploaded)
    batch = _batch_create(
        source=uploaded.name or "upload", file_format=file_format, created_by=created_by, default_outlet=default_outlet,
        status=ImportBatch.Status.QUEUED, upload_name=upload_name, file_sha256=sha256, file_size=size,
    )
    if size <= settings.FACTCHECK_IMPORT_INLINE_MAX_BYTES:
        import_batch_process(batch_id=batch.pk)
        batch.refresh_from_db()
    else:
        _enqueue(batch.pk)
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
