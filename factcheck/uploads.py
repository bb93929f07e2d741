"""One upload machinery for both importers: articles (factcheck.articles.services) and the
fact-check library (factcheck.factchecks.services).

An uploaded file is stored under FACTCHECK_UPLOAD_DIR; small files import in the request,
large ones in Celery (payload: the import's id). The file is read as SourceRows
(factcheck.articles.readers); each row is prepared by the importer's own checks or kept as a
per-row error with where it was; rows are stored chunk by chunk, each chunk one transaction
that writes its rows and moves the import's counters, which double as the resume point. A
crash loses at most the chunk in flight: running the same import again starts after the last
committed chunk, and one process works on an import at a time (a session advisory lock, which
a crashed process releases with its connection).

What differs between the importers is passed in: how a row is prepared, how a chunk is
stored, how the file is read, and what finishing means. Both models mix in
factcheck.articles.models.UploadProgress and have the same status, upload, counter and error
fields.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO, Generic, TypeVar

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.db import connection, transaction
from django.utils import timezone

from factcheck.articles.readers import ImportFileError, ReadPosition, SourceRow
from factcheck.articles.rows import ROW_VALUE_ERRORS, RowError

logger = logging.getLogger(__name__)

# The status values both import models name alike (UploadProgress.DONE and FAILED too).
QUEUED, IMPORTING, DONE, FAILED = "queued", "importing", "done", "failed"

P = TypeVar("P")  # what an importer prepares of a row (PreparedArticle, PreparedFactCheck)
Batch = Any  # an ImportBatch or a FactCheckImport: the fields named above, alike
ProgressCallback = Callable[[Batch], None]


# --- The stored upload ------------------------------------------------------------------------


def upload_path(upload_name: str) -> Path:
    return Path(settings.FACTCHECK_UPLOAD_DIR) / upload_name


def upload_delete(upload_name: str) -> None:
    if upload_name:
        upload_path(upload_name).unlink(missing_ok=True)


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


def file_digest(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while block := handle.read(1024 * 1024):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


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


# --- Starting an import -----------------------------------------------------------------------


def batch_create(model: type[Batch], *, source: str, created_by: User | None, **fields: Any) -> Batch:
    batch = model(
        source=source[:500],
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
        **fields,
    )
    batch.full_clean()
    batch.save()
    return batch


def upload_start(
    *, uploaded: UploadedFile, create: Callable[[str, str, int], Batch], process: Callable[[int], object], send: Callable[[int], object]
) -> Batch:
    """Store an uploaded file as a new import (`create(upload_name, sha256, size)`): small
    files import now (`process(id)`), large ones are sent to Celery once the request commits
    (`send(id)`)."""
    upload_name, sha256, size = upload_store(uploaded)
    batch = create(upload_name, sha256, size)
    if size <= settings.FACTCHECK_IMPORT_INLINE_MAX_BYTES:
        process(batch.pk)
        batch.refresh_from_db()
    else:
        batch_id = batch.pk
        # The queue is read at commit time so a deployment (or a test) can re-route imports.
        transaction.on_commit(lambda: send(batch_id))
    return batch


def file_import(
    *,
    model: type[Batch],
    path: Path,
    unfinished: dict[str, object],
    create: Callable[[str, int], Batch],
    process: Callable[[int, Path], Batch | None],
    what: str,
) -> Batch:
    """Import a file in this process (the command line). An unfinished import of the same
    file (and `unfinished`'s fields) is resumed rather than started over; `create(sha256,
    size)` makes a new one."""
    sha256, size = file_digest(path)
    batch = (
        model.objects.filter(file_sha256=sha256, upload_name="", **unfinished).exclude(status=DONE).order_by("-created_at").first()
    ) or create(sha256, size)
    result = process(batch.pk, path)
    if result is None:
        raise ImportFileError(f"{what} #{batch.pk} of this file is running in another process.")
    return result


# --- Reading a file into chunks ---------------------------------------------------------------


@dataclass(frozen=True)
class ChunkRow(Generic[P]):
    """What a chunk keeps of a row until it is stored: what the importer prepared of it, or
    where the row was and why it was rejected. Never the raw row: a rejected row's text (up
    to a physical line's cap, megabytes) would otherwise stay in memory for the whole chunk."""

    number: int
    where: str
    prepared: P | None
    error: str


def row_prepare(row: SourceRow, prepare: Callable[[dict[str, object]], P], *, noun: str, label: str) -> ChunkRow[P]:
    """`prepare(fields)` of a row the reader could read; a RowError (or a value no check
    foresaw) fails that row alone, as "This {noun} could not be read"."""
    if row.fields is None:
        return ChunkRow(row.number, row.where, None, row.error)
    try:
        return ChunkRow(row.number, row.where, prepare(row.fields), "")
    except RowError as exc:
        return ChunkRow(row.number, row.where, None, str(exc))
    except ROW_VALUE_ERRORS as exc:
        # A value no check foresaw fails its row, never the file's good rows; a crash (disk,
        # database, memory) is not a value's fault and stops the import, to resume.
        logger.exception("%s row %s (%s) could not be prepared", label, row.number, row.where)
        return ChunkRow(row.number, row.where, None, f"This {noun} could not be read ({type(exc).__name__}).")


def rows_import(
    *,
    batch: Batch,
    rows: Iterator[SourceRow],
    position: ReadPosition,
    on_progress: ProgressCallback | None,
    prepare: Callable[[SourceRow], ChunkRow[P]],
    store: Callable[[list[ChunkRow[P]], int], None],
    held_chars: Callable[[P], int] | None = None,
) -> None:
    """Prepare the rows after the resume point (`batch.rows_read`) and `store(chunk,
    bytes_read)` them a chunk at a time: FACTCHECK_IMPORT_CHUNK_ROWS rows, or fewer when
    `held_chars` is given and the chunk's prepared rows reach FACTCHECK_IMPORT_CHUNK_MAX_CHARS
    (a chunk of long articles would otherwise hold, and send in one statement, gigabytes)."""
    chunk_size = settings.FACTCHECK_IMPORT_CHUNK_ROWS
    chunk_max_chars = settings.FACTCHECK_IMPORT_CHUNK_MAX_CHARS
    resume_after = batch.rows_read
    chunk: list[ChunkRow[P]] = []
    held = 0
    for row in rows:
        if row.number <= resume_after:
            continue  # stored or reported by an earlier attempt at this import
        item = prepare(row)
        del row  # the raw row (its text) goes now, not when the next one replaces it
        chunk.append(item)
        if held_chars is not None and item.prepared is not None:
            held += held_chars(item.prepared)
        if len(chunk) >= chunk_size or (held_chars is not None and held >= chunk_max_chars):
            store(chunk, position.bytes)
            chunk = []
            held = 0
            if on_progress is not None:
                on_progress(batch)
    if chunk:
        store(chunk, position.bytes)
    if on_progress is not None:
        on_progress(batch)


def row_errors(rows: list[ChunkRow[P]]) -> list[dict[str, object]]:
    """The chunk's rejected rows as the import lists them."""
    return [{"row": item.number, "where": item.where, "reason": item.error} for item in rows if item.prepared is None]


def chunk_record(*, batch: Batch, counts: dict[str, int], errors: list[dict[str, object]]) -> None:
    """The chunk's counters (field name -> new value, `bytes_read` included) and its errors,
    listed up to FACTCHECK_IMPORT_MAX_LISTED_ERRORS for the whole import, in the chunk's
    transaction; then on `batch` too."""
    model = type(batch)
    limit = settings.FACTCHECK_IMPORT_MAX_LISTED_ERRORS
    listed = min(batch.rows_rejected, limit)
    errors.sort(key=lambda error: int(str(error["row"])))
    new_errors = errors[: max(0, limit - listed)]
    assignments = ", ".join(f"{model._meta.get_field(name).column} = %s" for name in counts)
    with connection.cursor() as cursor:
        # Appended in SQL: the error list is never read back into this process.
        cursor.execute(
            f"UPDATE {model._meta.db_table} SET {assignments}, errors = errors || %s::jsonb WHERE id = %s",
            [*counts.values(), json.dumps(new_errors), batch.pk],
        )
    for name, value in counts.items():
        setattr(batch, name, value)


# --- Running an import ------------------------------------------------------------------------


def batch_fail(*, batch: Batch, error: str, discard_upload: bool) -> None:
    fields: dict[str, object] = {"status": FAILED, "error": error, "finished_at": timezone.now()}
    if discard_upload:
        upload_delete(batch.upload_name)
        fields["upload_name"] = ""
    type(batch).objects.filter(pk=batch.pk).update(**fields)
    batch.refresh_from_db()


def import_process(
    *,
    model: type[Batch],
    pk: int,
    lock_key: int,
    path: Path | None,
    start: Callable[[Path], dict[str, object]],
    read: Callable[[Batch, BinaryIO, ReadPosition], None],
    finish: Callable[[Batch], None],
) -> Batch | None:
    """Import (or resume) an import from its file (`path`, or its stored upload).
    Idempotent: a finished import is left alone, and one another process is working on is
    skipped (returns None).

    `start(path)` gives the fields to record as the import starts (it may refuse the file
    with ImportFileError); `read(batch, stream, position)` reads and stores its rows;
    `finish(batch)` ends it. A file refused as a whole fails the import and drops the upload;
    any other error fails it with the upload kept, to resume after the last stored chunk."""
    batch = model.objects.filter(pk=pk).first()
    if batch is None or batch.status == DONE:
        return batch
    with advisory_lock(lock_key + pk) as held:
        if not held:
            return None
        batch.refresh_from_db()
        if batch.status == DONE:
            return batch
        source_path = path or (upload_path(batch.upload_name) if batch.upload_name else None)
        if source_path is None or not source_path.is_file():
            batch_fail(batch=batch, error="The file to import is gone; upload it again.", discard_upload=True)
            return batch
        position = ReadPosition()
        try:
            fields = start(source_path)
            model.objects.filter(pk=batch.pk).update(status=IMPORTING, error="", finished_at=None, **fields)
            batch.status = IMPORTING
            for name, value in fields.items():
                setattr(batch, name, value)
            with open(source_path, "rb") as stream:
                read(batch, stream, position)
        except ImportFileError as exc:
            batch_fail(batch=batch, error=str(exc), discard_upload=True)
            return batch
        except BaseException as exc:
            # Keep the file: the chunks stored so far are committed and a re-run resumes after them.
            batch_fail(batch=batch, error=f"Stopped after row {batch.rows_read}: {exc!r}. Run it again to resume.", discard_upload=False)
            raise
        finish(batch)
    return batch
