"""Writes for the fact-check library: imports, matching new fact-checks to the queue, and a
reviewer's decision on a match.

Imports run on the upload machinery both importers share (factcheck.uploads): the file is
streamed, each chunk of rows is one transaction with the import's counters (the resume point),
rows that fail are reported with where they were. What is the library's own is here: a
re-import changes nothing, as rows are keyed by (publisher, external id) and compared by a
hash of what they store.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any, BinaryIO

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from factcheck.accounts.roles import Role, has_role
from factcheck.articles.readers import ReadPosition, SourceRow, max_line_bytes
from factcheck.audit.services import audit_record
from factcheck.cache import QUEUE_CHANGES
from factcheck.claims.models import Claim, Evidence
from factcheck.claims.workflow.errors import StaleVersion, TransitionNotAllowed
from factcheck.claims.workflow.services import evidence_add
from factcheck.factchecks.library import factchecks_match_send
from factcheck.factchecks.matching import ClaimText, LibraryEntry, MatchRow, engine_available, match_new_entries
from factcheck.factchecks.models import ClaimMatch, FactCheck, FactCheckImport, MatchDecision
from factcheck.factchecks.readers import HEAD_BYTES, detect_layout, read_factcheck_rows
from factcheck.factchecks.rows import PreparedFactCheck, prepare_factcheck
from factcheck.learning.models import ModelKind, ModelVersion
from factcheck.learning.selectors import active_version
from factcheck.learning.services import model_store_path
from factcheck.queueing import queued_row_send, queued_rows_resend
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


def _row_prepare(row: SourceRow, *, layout: str, publisher: str) -> ChunkRow[PreparedFactCheck]:
    return row_prepare(
        row, lambda fields: prepare_factcheck(fields, layout=layout, publisher=publisher), noun="record", label="Fact-check import"
    )


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
def _chunk_store(*, batch: FactCheckImport, rows: list[ChunkRow[PreparedFactCheck]], bytes_read: int) -> None:
    errors = row_errors(rows)
    keys = {(item.prepared.publisher, item.prepared.external_id) for item in rows if item.prepared is not None}
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
    for item in rows:
        record = item.prepared
        if record is None:
            continue
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
    counts = {
        "rows_read": batch.rows_read + len(rows),
        "rows_created": batch.rows_created + created,
        "rows_updated": batch.rows_updated + updated,
        "rows_unchanged": batch.rows_unchanged + unchanged,
        "rows_rejected": batch.rows_rejected + len(errors),
        "bytes_read": bytes_read,
    }
    chunk_record(batch=batch, counts=counts, errors=errors)


def _import_finish(*, batch: FactCheckImport) -> None:
    if batch.rows_read == 0:
        batch_fail(batch=batch, error="The file holds no fact-checks.", discard_upload=True)
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


def _import_read(batch: FactCheckImport, stream: BinaryIO, position: ReadPosition, on_progress: ProgressCallback | None) -> None:
    line_limit = max_line_bytes(settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS)
    rows_import(
        batch=batch, rows=read_factcheck_rows(stream, position, layout=batch.layout, line_limit=line_limit), position=position,
        on_progress=on_progress,
        prepare=lambda row: _row_prepare(row, layout=batch.layout, publisher=batch.publisher),
        store=lambda chunk, bytes_read: _chunk_store(batch=batch, rows=chunk, bytes_read=bytes_read),
    )


def factcheck_import_process(*, import_id: int, path: Path | None = None, on_progress: ProgressCallback | None = None) -> FactCheckImport | None:
    """Import (or resume) an import from its file. Idempotent: a finished import is left
    alone, and one another process is working on is skipped (returns None)."""
    return import_process(
        model=FactCheckImport, pk=import_id, lock_key=IMPORT_LOCK_KEY, path=path,
        start=lambda source_path: {"layout": _file_layout(source_path)},
        read=lambda batch, stream, position: _import_read(batch, stream, position, on_progress),
        finish=lambda batch: _import_finish(batch=batch),
    )


def _import_create(*, source: str, created_by: User | None, publisher: str, **fields: Any) -> FactCheckImport:
    batch: FactCheckImport = batch_create(
        FactCheckImport, source=source, created_by=created_by, publisher=" ".join(publisher.split())[:200],
        status=FactCheckImport.Status.QUEUED, **fields,
    )
    return batch


def factchecks_import_file(
    *, path: Path, publisher: str = "", created_by: User | None = None, on_progress: ProgressCallback | None = None
) -> FactCheckImport:
    """Import a file in this process (the command line). An unfinished import of the same
    file and publisher is resumed rather than started over."""
    _file_layout(path)  # an unknown layout is refused before anything is recorded
    publisher = " ".join(publisher.split())[:200]
    batch: FactCheckImport = file_import(
        model=FactCheckImport, path=path, unfinished={"publisher": publisher}, what="Fact-check import",
        create=lambda sha256, size: _import_create(
            source=path.name, created_by=created_by, publisher=publisher, file_sha256=sha256, file_size=size
        ),
        process=lambda pk, source_path: factcheck_import_process(import_id=pk, path=source_path, on_progress=on_progress),
    )
    return batch


def factcheck_import_upload_start(*, uploaded: UploadedFile, created_by: User | None, publisher: str = "") -> FactCheckImport:
    """Store an uploaded file as a new import: small files import now, large ones in Celery."""
    batch: FactCheckImport = upload_start(
        uploaded=uploaded,
        create=lambda upload_name, sha256, size: _import_create(
            source=uploaded.name or "upload", created_by=created_by, publisher=publisher,
            upload_name=upload_name, file_sha256=sha256, file_size=size,
        ),
        process=lambda pk: factcheck_import_process(import_id=pk),
        send=_import_send,
    )
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
    queued = Claim.objects.filter(cluster__status__in=MATCHED_STATUSES).values_list("id", "sentence", "article__published_at").order_by("id")
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
