"""Writes for the fact-check library: imports, matching new fact-checks to the queue, and a
reviewer's decision on a match.

Imports follow the article import (factcheck.articles.services): the file is streamed, each
chunk of rows is one transaction with the import's counters (the resume point), rows that
fail are reported with where they were, and a re-import changes nothing: rows are keyed by
(publisher, external id) and compared by a hash of what they store.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from factcheck.accounts.roles import Role, has_role
from factcheck.articles.readers import ImportFileError, ReadPosition, SourceRow, max_line_bytes
from factcheck.articles.rows import ROW_VALUE_ERRORS, RowError
from factcheck.articles.services import advisory_lock, file_digest, upload_delete, upload_path, upload_store
from factcheck.audit.services import audit_record
from factcheck.cache import QUEUE_CHANGES
from factcheck.claims.errors import StaleVersion, TransitionNotAllowed
from factcheck.claims.models import Claim, Evidence
from factcheck.claims.services import evidence_add
from factcheck.factchecks.library import factchecks_match_send
from factcheck.factchecks.matching import ClaimText, LibraryEntry, MatchRow, engine_available, match_new_entries
from factcheck.factchecks.models import ClaimMatch, FactCheck, FactCheckImport, MatchDecision
from factcheck.factchecks.readers import HEAD_BYTES, detect_layout, read_factcheck_rows
from factcheck.factchecks.rows import PreparedFactCheck, prepare_factcheck
from factcheck.learning.models import ModelKind, ModelVersion
from factcheck.learning.selectors import active_version
from factcheck.learning.services import model_store_path
from factcheck.queueing import queued_row_send, queued_rows_resend
from pipeline.match_store import UPSERT_CLAIM_MATCHES

logger = logging.getLogger(__name__)

IMPORT_LOCK_KEY = 0x46430001_00000000  # advisory lock keys of fact-check imports: "FC" 1 << 48
ProgressCallback = Callable[[FactCheckImport], None]
QUEUE_UNAVAILABLE = "The task queue is unavailable: the import starts when it is back."
_STORED_FIELDS = (
    "claim", "title", "summary", "rating_text", "rating_value", "url", "published_on", "speaker", "metadata", "content_hash",
    "import_batch", "updated_at", "match_pending_since", "match_sent_at",
)


# --- Import -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ChunkRow:
    number: int
    where: str
    factcheck: PreparedFactCheck | None
    error: str


def _row_prepare(row: SourceRow, *, layout: str, publisher: str) -> _ChunkRow:
    if row.fields is None:
        return _ChunkRow(row.number, row.where, None, row.error)
    try:
        return _ChunkRow(row.number, row.where, prepare_factcheck(row.fields, layout=layout, publisher=publisher), "")
    except RowError as exc:
        return _ChunkRow(row.number, row.where, None, str(exc))
    except ROW_VALUE_ERRORS as exc:
        # A value no check foresaw fails its row, never the file's good rows; a crash (disk,
        # database, memory) is not a value's fault and stops the import, to resume.
        logger.exception("Fact-check import row %s (%s) could not be prepared", row.number, row.where)
        return _ChunkRow(row.number, row.where, None, f"This record could not be read ({type(exc).__name__}).")


def _entry(prepared: PreparedFactCheck, digest: str, batch: FactCheckImport, now: Any) -> FactCheck:
    return FactCheck(
        publisher=prepared.publisher, external_id=prepared.external_id, claim=prepared.claim, title=prepared.title,
        summary=prepared.summary, rating_text=prepared.rating_text, rating_value=prepared.rating_value, url=prepared.url,
        published_on=prepared.published_on, speaker=prepared.speaker, metadata=prepared.metadata, content_hash=digest,
        source=FactCheck.Source.IMPORTED, import_batch=batch, updated_at=now,
        # New or changed: pending in the chunk's own transaction, so a lost message is resent.
        match_pending_since=now, match_sent_at=None,
    )


@transaction.atomic
def _chunk_store(*, batch: FactCheckImport, rows: list[_ChunkRow], bytes_read: int) -> None:
    errors = [{"row": item.number, "where": item.where, "reason": item.error} for item in rows if item.factcheck is None]
    prepared = [item for item in rows if item.factcheck is not None]
    keys = {(item.factcheck.publisher, item.factcheck.external_id) for item in prepared if item.factcheck}
    stored: dict[tuple[str, str], FactCheck] = {
        (entry.publisher, entry.external_id): entry
        for entry in FactCheck.objects.filter(
            publisher__in={key[0] for key in keys}, external_id__in={key[1] for key in keys}
        ).only("id", "publisher", "external_id", "content_hash", "source", "import_batch_id")
    }
    now = timezone.now()
    to_create: dict[tuple[str, str], FactCheck] = {}
    to_update: dict[tuple[str, str], FactCheck] = {}
    created = updated = unchanged = 0
    first_row_of_key: dict[tuple[str, str], int] = {}
    for item in prepared:
        record = item.factcheck
        assert record is not None
        key = (record.publisher, record.external_id)
        digest = record.content_hash
        known = to_create.get(key) or to_update.get(key) or stored.get(key)
        if known is not None and known.content_hash != digest and (key in first_row_of_key or known.import_batch_id == batch.pk):
            # Two records of one file under one id (url or @id): the first is kept and the other
            # listed, never silently merged into it.
            first = f"row {first_row_of_key[key]}" if key in first_row_of_key else "an earlier row"
            reason = f"Same id ({record.external_id[:80]}) as {first} of this file, with other content: not imported."
            errors.append({"row": item.number, "where": item.where, "reason": reason})
            continue
        first_row_of_key.setdefault(key, item.number)
        if known is None:
            to_create[key] = _entry(record, digest, batch, now)
            created += 1
        elif known.source == FactCheck.Source.DESK:
            errors.append({"row": item.number, "where": item.where, "reason": "This id is the desk's own published verdict; an import does not overwrite it."})
        elif known.content_hash == digest:
            unchanged += 1
        else:
            replacement = _entry(record, digest, batch, now)
            replacement.pk = known.pk
            (to_create if key in to_create else to_update)[key] = replacement
            updated += 1
    if to_create:
        # A concurrent import of the same rows: the unique key keeps one copy.
        FactCheck.objects.bulk_create(list(to_create.values()), ignore_conflicts=True)
    if to_update:
        FactCheck.objects.bulk_update(list(to_update.values()), fields=list(_STORED_FIELDS))
    listed = min(batch.rows_rejected, settings.FACTCHECK_IMPORT_MAX_LISTED_ERRORS)
    errors.sort(key=lambda error: int(str(error["row"])))
    counts = {
        "rows_read": batch.rows_read + len(rows),
        "rows_created": batch.rows_created + created,
        "rows_updated": batch.rows_updated + updated,
        "rows_unchanged": batch.rows_unchanged + unchanged,
        "rows_rejected": batch.rows_rejected + len(errors),
        "bytes_read": bytes_read,
    }
    new_errors = errors[: max(0, settings.FACTCHECK_IMPORT_MAX_LISTED_ERRORS - listed)]
    with connection.cursor() as cursor:
        # Appended in SQL: the error list is never read back into this process.
        cursor.execute(
            f"UPDATE {FactCheckImport._meta.db_table} SET rows_read = %s, rows_created = %s, rows_updated = %s, rows_unchanged = %s, "
            "rows_rejected = %s, bytes_read = %s, errors = errors || %s::jsonb WHERE id = %s",
            [*counts.values(), json.dumps(new_errors), batch.pk],
        )
    for name, value in counts.items():
        setattr(batch, name, value)


def _rows_import(*, batch: FactCheckImport, rows: Iterator[SourceRow], position: ReadPosition, on_progress: ProgressCallback | None) -> None:
    chunk_size = settings.FACTCHECK_IMPORT_CHUNK_ROWS
    resume_after = batch.rows_read
    chunk: list[_ChunkRow] = []
    for row in rows:
        if row.number <= resume_after:
            continue  # stored or reported by an earlier attempt at this import
        chunk.append(_row_prepare(row, layout=batch.layout, publisher=batch.publisher))
        if len(chunk) >= chunk_size:
            _chunk_store(batch=batch, rows=chunk, bytes_read=position.bytes)
            chunk = []
            if on_progress is not None:
                on_progress(batch)
    if chunk:
        _chunk_store(batch=batch, rows=chunk, bytes_read=position.bytes)
    if on_progress is not None:
        on_progress(batch)


def _import_fail(*, batch: FactCheckImport, error: str, discard_upload: bool) -> None:
    fields: dict[str, object] = {"status": FactCheckImport.Status.FAILED, "error": error, "finished_at": timezone.now()}
    if discard_upload:
        upload_delete(batch.upload_name)
        fields["upload_name"] = ""
    FactCheckImport.objects.filter(pk=batch.pk).update(**fields)
    batch.refresh_from_db()


def _import_finish(*, batch: FactCheckImport) -> None:
    if batch.rows_read == 0:
        _import_fail(batch=batch, error="The file holds no fact-checks.", discard_upload=True)
        return
    with transaction.atomic():
        FactCheckImport.objects.filter(pk=batch.pk).update(status=FactCheckImport.Status.DONE, error="", finished_at=timezone.now(), upload_name="")
        changed = list(FactCheck.objects.filter(import_batch=batch, match_pending_since__isnull=False).order_by("id").values_list("id", flat=True))
        if changed:
            transaction.on_commit(lambda: factchecks_match_send(changed))
    upload_delete(batch.upload_name)
    batch.refresh_from_db()


def _file_layout(path: Path) -> str:
    with open(path, "rb") as stream:
        return detect_layout(stream.read(HEAD_BYTES))


def factcheck_import_process(*, import_id: int, path: Path | None = None, on_progress: ProgressCallback | None = None) -> FactCheckImport | None:
    """Import (or resume) an import from its file. Idempotent: a finished import is left
    alone, and one another process is working on is skipped (returns None)."""
    batch = FactCheckImport.objects.filter(pk=import_id).first()
    if batch is None or batch.status == FactCheckImport.Status.DONE:
        return batch
    with advisory_lock(IMPORT_LOCK_KEY + import_id) as held:
        if not held:
            return None
        batch.refresh_from_db()
        if batch.status == FactCheckImport.Status.DONE:
            return batch
        source_path = path or (upload_path(batch.upload_name) if batch.upload_name else None)
        if source_path is None or not source_path.is_file():
            _import_fail(batch=batch, error="The file to import is gone; upload it again.", discard_upload=True)
            return batch
        position = ReadPosition()
        try:
            layout = _file_layout(source_path)
            FactCheckImport.objects.filter(pk=batch.pk).update(status=FactCheckImport.Status.IMPORTING, layout=layout, error="", finished_at=None)
            batch.status, batch.layout = FactCheckImport.Status.IMPORTING, layout
            with open(source_path, "rb") as stream:
                line_limit = max_line_bytes(settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS)
                rows = read_factcheck_rows(stream, position, layout=layout, line_limit=line_limit)
                _rows_import(batch=batch, rows=rows, position=position, on_progress=on_progress)
        except ImportFileError as exc:
            _import_fail(batch=batch, error=str(exc), discard_upload=True)
            return batch
        except BaseException as exc:
            # Keep the file: the chunks stored so far are committed and a re-run resumes after them.
            _import_fail(batch=batch, error=f"Stopped after row {batch.rows_read}: {exc!r}. Run it again to resume.", discard_upload=False)
            raise
        _import_finish(batch=batch)
    return batch


def _import_create(*, source: str, created_by: User | None, publisher: str, **fields: Any) -> FactCheckImport:
    batch = FactCheckImport(
        source=source[:500],
        publisher=" ".join(publisher.split())[:200],
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
        status=FactCheckImport.Status.QUEUED,
        **fields,
    )
    batch.full_clean()
    batch.save()
    return batch


def factchecks_import_file(
    *, path: Path, publisher: str = "", created_by: User | None = None, on_progress: ProgressCallback | None = None
) -> FactCheckImport:
    """Import a file in this process (the command line). An unfinished import of the same
    file and publisher is resumed rather than started over."""
    _file_layout(path)  # an unknown layout is refused before anything is recorded
    sha256, size = file_digest(path)
    publisher = " ".join(publisher.split())[:200]
    batch = (
        FactCheckImport.objects.filter(file_sha256=sha256, publisher=publisher, upload_name="")
        .exclude(status=FactCheckImport.Status.DONE)
        .order_by("-created_at")
        .first()
    ) or _import_create(source=path.name, created_by=created_by, publisher=publisher, file_sha256=sha256, file_size=size)
    result = factcheck_import_process(import_id=batch.pk, path=path, on_progress=on_progress)
    if result is None:
        raise ImportFileError(f"Fact-check import #{batch.pk} of this file is running in another process.")
    return result


def factcheck_import_upload_start(*, uploaded: UploadedFile, created_by: User | None, publisher: str = "") -> FactCheckImport:
    """Store an uploaded file as a new import: small files import now, large ones in Celery."""
    upload_name, sha256, size = upload_store(uploaded)
    batch = _import_create(
        source=uploaded.name or "upload", created_by=created_by, publisher=publisher,
        upload_name=upload_name, file_sha256=sha256, file_size=size,
    )
    if size <= settings.FACTCHECK_IMPORT_INLINE_MAX_BYTES:
        factcheck_import_process(import_id=batch.pk)
        batch.refresh_from_db()
    else:
        batch_id = batch.pk
        transaction.on_commit(lambda: _import_send(batch_id))
    return batch


def _import_send(import_id: int) -> bool:
    from factcheck.factchecks.tasks import factcheck_import_run

    queued = FactCheckImport.objects.filter(status=FactCheckImport.Status.QUEUED)
    return queued_row_send(factcheck_import_run, queued=queued, pk=import_id, queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=QUEUE_UNAVAILABLE)


def factcheck_imports_resend() -> list[int]:
    """Send the queued imports whose message could not be sent (the reaper calls this)."""
    from factcheck.factchecks.tasks import factcheck_import_run

    queued = FactCheckImport.objects.filter(status=FactCheckImport.Status.QUEUED)
    return queued_rows_resend(factcheck_import_run, queued=queued, queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=QUEUE_UNAVAILABLE)


# --- Matching new fact-checks against the queue ----------------------------------------------

# Claims still to be decided: a published or dismissed claim gains nothing from a suggestion.
MATCHED_STATUSES = [status for status in Claim.Status.values if status not in {Claim.Status.APPROVED, Claim.Status.DISMISSED}]


def active_matching_version() -> ModelVersion:
    """The matching version that scores now."""
    return active_version(ModelKind.MATCHING)


def active_matching_artifact_dir() -> str:
    """The active matching version's artifact directory ("" for the shipped one): what the web
    app's matching scores with, as the Spark job does (pipeline/sql/read_matching_artifact.sql)."""
    where = model_store_path(active_matching_version())
    return str(where) if where is not None else ""


def library_entries() -> list[LibraryEntry]:
    """The whole library as the matching engine reads it."""
    rows = FactCheck.objects.values_list(
        "id", "claim", "title", "summary", "rating_text", "url", "published_on", "publisher", "verdict__claim_id"
    ).order_by("id")
    return [
        LibraryEntry(
            id=pk, claim=claim, title=title, summary=summary, rating=rating, url=url,
            date=published_on.isoformat() if published_on else "", publisher=publisher, own_claim_id=own_claim_id,
        )
        for pk, claim, title, summary, rating, url, published_on, publisher, own_claim_id in rows.iterator(chunk_size=5000)
    ]


def claim_matches_store(rows: list[Any]) -> int:
    """Store suggested matches (matching.MatchRow); returns how many rows were written."""
    if not rows:
        return 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            UPSERT_CLAIM_MATCHES,
            {
                "claim_ids": [row.claim_id for row in rows],
                "factcheck_ids": [row.factcheck_id for row in rows],
                "scores": [row.score for row in rows],
                "ranks": [row.rank for row in rows],
            },
        )
        QUEUE_CHANGES.changed()
        return cursor.rowcount


def _queued_claims() -> Iterator[ClaimText]:
    """The claims still to be decided, each dated as the Spark job dates it: the day (UTC) its
    article was published (pipeline/sql/read_run_article_dates.sql), or none. Streamed."""
    queued = Claim.objects.filter(status__in=MATCHED_STATUSES).values_list("id", "sentence", "article__published_at").order_by("id")
    for pk, sentence, published_at in queued.iterator(chunk_size=5000):
        yield ClaimText(id=pk, text=sentence, date=published_at.astimezone(UTC).date() if published_at else None)


def _rows_of_claims_matched_to(rows: list[MatchRow], factcheck_ids: set[int]) -> list[MatchRow]:
    """Every stored row of the claims whose best matches now include one of `factcheck_ids`:
    their whole top list is written with fresh ranks, as a run of the job would write it."""
    claims = {row.claim_id for row in rows if row.factcheck_id in factcheck_ids}
    return [row for row in rows if row.claim_id in claims]


# Clears the pending marker of the entries just matched, each only if it is still the one read
# before matching: an entry changed meanwhile (a re-import) stays pending and is matched again.
_MATCH_PENDING_CLEAR = """
UPDATE factchecks AS f SET match_pending_since = NULL, match_sent_at = NULL
FROM unnest(%s::bigint[], %s::timestamptz[]) AS p (id, since)
WHERE f.id = p.id AND f.match_pending_since = p.since
"""


def factchecks_match_new(*, factcheck_ids: list[int]) -> int:
    """Match the queued claims against fact-checks that just entered the library (or changed),
    without re-running extraction, with the Spark job's settings and dates: the whole library
    is indexed, the claims that have one of them among their candidates are re-ranked, and
    those whose best matches now include one of them get their top list stored. Only entries still pending are matched, and each is cleared once matched, so a
    second delivery finds nothing to do; the upsert never overwrites a reviewer's decision.
    Returns the matches written."""
    pending = dict(FactCheck.objects.filter(pk__in=factcheck_ids, match_pending_since__isnull=False).values_list("id", "match_pending_since"))
    if not pending:
        return 0
    if not engine_available():
        # Left pending: matched once the engine is installed and the reaper sends them again.
        logger.warning("No matching engine (pipeline.nlp.matching); %s new fact-checks not matched", len(pending))
        return 0
    # Only the claims that may now have a new entry among their candidates are re-ranked
    # (match_new_entries): the cost of what the new entries add, not of the whole queue.
    rows = match_new_entries(
        library_entries(), _queued_claims(), set(pending), top=settings.FACTCHECK_MATCH_TOP,
        candidates=settings.FACTCHECK_MATCH_CANDIDATES, min_score=settings.FACTCHECK_MATCH_MIN_SCORE, artifact_dir=active_matching_artifact_dir(),
    )
    written = claim_matches_store(_rows_of_claims_matched_to(rows, set(pending)))
    with connection.cursor() as cursor:
        cursor.execute(_MATCH_PENDING_CLEAR, [list(pending), list(pending.values())])
    return written


def factchecks_match_resend() -> list[int]:
    """Send again the matching of the fact-checks still pending whose message was never sent
    (the broker was down) or was sent RESEND_SECONDS ago and not done (lost); the reaper calls
    this. Entries of an import still running are left to that import, which sends them when it
    finishes. Returns the ids sent (none while the broker is down)."""
    resend_before = timezone.now() - timedelta(seconds=settings.FACTCHECK_RUN_RESEND_SECONDS)
    due = (
        FactCheck.objects.filter(match_pending_since__isnull=False)
        .filter(Q(match_sent_at__isnull=True) | Q(match_sent_at__lt=resend_before))
        .exclude(import_batch__status__in=[FactCheckImport.Status.QUEUED, FactCheckImport.Status.IMPORTING])
        .order_by("id")
    )
    ids = list(due.values_list("id", flat=True))
    return ids if ids and factchecks_match_send(ids) else []


# --- A reviewer's decision on a match ----------------------------------------------------------

DECIDE_FROM = {
    ClaimMatch.Status.CONFIRMED: {ClaimMatch.Status.SUGGESTED, ClaimMatch.Status.REJECTED},
    ClaimMatch.Status.REJECTED: {ClaimMatch.Status.SUGGESTED, ClaimMatch.Status.CONFIRMED},
}


def _match_state(match: ClaimMatch) -> dict[str, Any]:
    return {"match": match.pk, "factcheck": match.factcheck_id, "match_status": match.status, "match_version": match.version}


def _decision_label(*, match: ClaimMatch, decision: str, actor: User) -> MatchDecision:
    """The decision as a label for the matcher's refits (factchecks.refit), with the matching
    model version active now: the one whose suggestion the reviewer was shown."""
    label = MatchDecision(
        claim_id=match.claim_id, factcheck_id=match.factcheck_id, decision=decision, same_claim=decision != MatchDecision.Decision.REJECTED,
        score=match.score, model_version=active_matching_version(), decided_by=actor, decided_at=match.decided_at or timezone.now(),
    )
    label.full_clean()
    label.save()
    return label


@transaction.atomic
def claim_match_decide(*, match: ClaimMatch, actor: User, decision: str, expected_version: int | None = None) -> ClaimMatch:
    """A reviewer confirms (the fact-check did check this claim) or rejects a match. Deciding
    again the same way changes nothing; changing one's mind is a new decision, audited."""
    if not has_role(actor, Role.REVIEWER):
        raise PermissionDenied("Deciding on a match needs the reviewer role.")
    if decision not in DECIDE_FROM:
        raise ValidationError(f"Unknown decision {decision!r}: confirm or reject.")
    locked = ClaimMatch.objects.select_for_update().get(pk=match.pk)
    if expected_version is not None and locked.version != expected_version:
        raise StaleVersion(
            f"Someone else decided on this match after you opened it (it is now {locked.get_status_display().lower()}); nothing was saved.",
            current_version=locked.version,
            changes=[],
        )
    if locked.status == decision:
        return locked
    if locked.status not in DECIDE_FROM[ClaimMatch.Status(decision)]:
        raise TransitionNotAllowed(f"A {locked.get_status_display().lower()} match cannot be {decision}ed.")
    before = _match_state(locked)
    locked.status = decision
    locked.decided_by = actor
    locked.decided_at = timezone.now()
    locked.version += 1
    locked.full_clean(validate_unique=False, validate_constraints=False)
    locked.save(update_fields=["status", "decided_by", "decided_at", "version", "updated_at"])
    audit_record(
        actor=actor, verb="claim_match.confirm" if decision == ClaimMatch.Status.CONFIRMED else "claim_match.reject",
        object_type="claim", object_id=locked.claim_id, before=before, after=_match_state(locked),
    )
    _decision_label(match=locked, decision=decision, actor=actor)
    match.status, match.version, match.decided_by, match.decided_at = locked.status, locked.version, locked.decided_by, locked.decided_at
    return locked


@transaction.atomic
def claim_match_attach(*, claim: Claim, factcheck: FactCheck, actor: User) -> ClaimMatch:
    """A reviewer found the fact-check that checked this claim in the library by hand: the
    match is stored as confirmed (a confirmation like any other, audited as
    "claim_match.attach"). A match the matcher had suggested or a reviewer rejected becomes
    confirmed; one already confirmed is left as it is; a new one is the matcher's miss
    (origin "manual", score 0, ranked after the claim's other matches)."""
    if not has_role(actor, Role.REVIEWER):
        raise PermissionDenied("Attaching a fact-check needs the reviewer role.")
    Claim.objects.select_for_update().filter(pk=claim.pk).first()  # one attach at a time per claim
    existing = ClaimMatch.objects.select_for_update().filter(claim=claim, factcheck=factcheck).first()
    if existing is not None and existing.status == ClaimMatch.Status.CONFIRMED:
        return existing
    now = timezone.now()
    if existing is not None:
        before = _match_state(existing)
        existing.status, existing.decided_by, existing.decided_at = ClaimMatch.Status.CONFIRMED, actor, now
        existing.version += 1
        existing.full_clean(validate_unique=False, validate_constraints=False)
        existing.save(update_fields=["status", "decided_by", "decided_at", "version", "updated_at"])
        match = existing
    else:
        before = {"match": None, "factcheck": factcheck.pk, "match_status": None, "match_version": None}
        last = ClaimMatch.objects.filter(claim=claim).order_by("-rank").values_list("rank", flat=True).first() or 0
        match = ClaimMatch(
            claim=claim, factcheck=factcheck, score=0.0, rank=min(last + 1, 32767), status=ClaimMatch.Status.CONFIRMED,
            origin=ClaimMatch.Origin.MANUAL, decided_by=actor, decided_at=now,
        )
        match.full_clean(validate_constraints=False)
        match.save()
    audit_record(actor=actor, verb="claim_match.attach", object_type="claim", object_id=claim.pk, before=before, after=_match_state(match))
    _decision_label(match=match, decision=MatchDecision.Decision.ATTACHED, actor=actor)
    return match


def claim_match_verdict_start(*, match: ClaimMatch, actor: User) -> Evidence | None:
    """Start a verdict from a confirmed match: the earlier fact-check becomes evidence on the
    claim (when it has an address; once, however often this is called), for the verdict form
    to cite. Returns that evidence, or None for a fact-check without a url."""
    if not has_role(actor, Role.REVIEWER):
        raise PermissionDenied("Starting a verdict needs the reviewer role.")
    match = ClaimMatch.objects.select_related("factcheck", "claim").get(pk=match.pk)
    if match.status != ClaimMatch.Status.CONFIRMED:
        raise TransitionNotAllowed("Confirm the match before starting a verdict from it.")
    factcheck = match.factcheck
    if not factcheck.url:
        return None
    existing = Evidence.objects.filter(claim_id=match.claim_id, url=factcheck.url).order_by("id").first()
    if existing is not None:
        return existing
    title = f"{factcheck.publisher}: {factcheck.title or factcheck.claim}"
    note = f"Rated “{factcheck.rating_display}”" + (f" on {factcheck.published_on.isoformat()}" if factcheck.published_on else "")
    return evidence_add(claim=match.claim, actor=actor, kind=Evidence.Kind.FACT_CHECK, url=factcheck.url, title=title[:300], note=note)
