"""Writes for pipeline runs. The Celery task and the import services call these."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import astuple, dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from factcheck.articles.models import ImportBatch
from factcheck.audit.services import audit_record
from factcheck.cache import QUEUE_CHANGES
from factcheck.queueing import task_send
from factcheck.runs.models import PipelineRun, PipelineRunArticle
from factcheck.runs.spark import database_url_for_job
from pipeline.db import clear_staging, settle_indexes

logger = logging.getLogger(__name__)


@transaction.atomic
def run_create(
    *,
    article_ids: Iterable[int],
    import_batch: ImportBatch | None = None,
    created_by: User | None = None,
    rerun_of: PipelineRun | None = None,
) -> PipelineRun:
    """Create a queued run over `article_ids` and enqueue it once the transaction commits."""
    ids = sorted(set(article_ids))
    if not ids:
        raise ValueError("A pipeline run needs at least one article.")
    run = PipelineRun(
        import_batch=import_batch,
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
        rerun_of=rerun_of,
        articles_count=len(ids),
    )
    run.full_clean()
    run.save()
    PipelineRunArticle.objects.bulk_create(PipelineRunArticle(run=run, article_id=article_id) for article_id in ids)
    # Only the id travels: the worker reads everything else from PostgreSQL. The queue is
    # read at send time so a deployment (or a test) can point runs at its own workers.
    transaction.on_commit(lambda: run_send(run_id=run.pk))
    return run


def run_send(*, run_id: int) -> bool:
    """Send a queued run's task message and record when. False, with nothing recorded, when
    the broker is unreachable: the run stays queued and the reaper sends it later."""
    from factcheck.runs.tasks import run_pipeline

    # Recorded before sending: a worker may claim, fail and re-queue the run (clearing
    # enqueued_at for the retry) before a write after the send would land.
    now = timezone.now()
    PipelineRun.objects.filter(pk=run_id, status=PipelineRun.Status.QUEUED).update(enqueued_at=now)
    if not task_send(run_pipeline, args=(run_id,), queue=settings.CELERY_SPARK_QUEUE):
        PipelineRun.objects.filter(pk=run_id, enqueued_at=now).update(enqueued_at=None)
        return False
    return True


@transaction.atomic
def run_rerun(*, run: PipelineRun, created_by: User | None = None) -> PipelineRun:
    """A new run over the same articles; the merge makes it a no-op when nothing changed.
    Only a finished run is re-run (a queued or running one will still end by itself)."""
    run = PipelineRun.objects.select_for_update().get(pk=run.pk)  # one re-run at a time (a double click)
    if not run.is_finished:
        raise ValidationError(f"Run #{run.pk} is {run.status}: only a finished run can be run again.")
    pending = run.reruns.filter(status__in=[PipelineRun.Status.QUEUED, PipelineRun.Status.RUNNING]).first()
    if pending is not None:
        raise ValidationError(f"Run #{run.pk} is being run again already, as run #{pending.pk}.")
    article_ids = PipelineRunArticle.objects.filter(run=run).values_list("article_id", flat=True)
    rerun = run_create(article_ids=list(article_ids), import_batch=run.import_batch, created_by=created_by, rerun_of=run)
    audit_record(
        actor=created_by, verb="run.rerun", object_type="pipeline_run", object_id=run.pk,
        before={"status": run.status}, after={"rerun": rerun.pk},
    )
    return rerun


def run_claim(*, run_id: int, worker: str, spark_master: str) -> int | None:
    """Atomically move a queued run that is due to running: the attempt number it starts, or
    None when another delivery got there first (or its retry is not due yet)."""
    now = timezone.now()
    claimed = (
        PipelineRun.objects.filter(pk=run_id, status=PipelineRun.Status.QUEUED)
        .filter(Q(not_before__isnull=True) | Q(not_before__lte=now))
        .update(
            status=PipelineRun.Status.RUNNING,
            stage="submitting",
            stage_started_at=now,
            articles_done=0,
            attempts=F("attempts") + 1,
            started_at=now,
            heartbeat_at=now,
            finished_at=None,
            worker=worker[:300],
            spark_master=spark_master[:300],
        )
    )
    if claimed != 1:
        return None
    return PipelineRun.objects.filter(pk=run_id).values_list("attempts", flat=True).get()


def run_heartbeat(*, run_id: int, attempt: int) -> bool:
    """Mark the attempt alive. False when the run is no longer this attempt's (the reaper took
    it back, or a later attempt has it): the caller must stop its Spark job."""
    return PipelineRun.objects.filter(pk=run_id, status=PipelineRun.Status.RUNNING, attempts=attempt).update(heartbeat_at=timezone.now()) == 1


def retry_delay(attempt: int) -> timedelta:
    """How long a run waits after its `attempt`-th failed: RETRY_SECONDS, then four times longer each time."""
    return timedelta(seconds=settings.FACTCHECK_RUN_RETRY_SECONDS * 4 ** (attempt - 1))


def _attempt_end(*, attempt: int, error: str, retry: bool, now: datetime) -> dict[str, object]:
    """The fields that end a failed attempt: queued again after a delay while attempts remain
    (and the failure is one worth retrying), otherwise failed for good."""
    if retry and attempt < settings.FACTCHECK_RUN_MAX_ATTEMPTS:
        return {
            "status": PipelineRun.Status.QUEUED,
            "stage": "waiting to retry",
            "not_before": now + retry_delay(attempt),
            "enqueued_at": None,
            "heartbeat_at": None,
            "error": f"Attempt {attempt} of {settings.FACTCHECK_RUN_MAX_ATTEMPTS} failed: {error}",
        }
    return {"status": PipelineRun.Status.FAILED, "stage": "failed", "finished_at": now, "error": error}


def run_finish(*, run_id: int, attempt: int, exit_code: int, log_tail: str, error: str = "", retry: bool = True) -> None:
    """Record how an attempt's spark-submit ended. Only the attempt that holds the run can end
    it; a failed one is retried (see _attempt_end) and leaves no staged rows behind."""
    now = timezone.now()
    succeeded = exit_code == 0 and not error
    fields: dict[str, object] = {"exit_code": exit_code, "log_tail": log_tail}
    if succeeded:
        fields.update(status=PipelineRun.Status.SUCCEEDED, progress=1.0, error="", finished_at=now)
    else:
        fields.update(_attempt_end(attempt=attempt, error=error, retry=retry, now=now))
    changed = PipelineRun.objects.filter(pk=run_id, status=PipelineRun.Status.RUNNING, attempts=attempt).update(**fields)
    if changed and succeeded:
        # The merge gave new appearances their cluster's state and merged clusters' state (in SQL).
        QUEUE_CHANGES.changed()
        from factcheck.claims.tasks import queue_order_refresh
        from factcheck.runs.tasks import search_indexes_settle as search_indexes_settle_task

        # The queue's stored order catches up with a day that turned during the run (the
        # merge's trigger ranked its own rows against the order's day), off the run's path.
        transaction.on_commit(lambda: task_send(queue_order_refresh, args=(), queue=settings.CELERY_TASK_DEFAULT_QUEUE))
        # The merge left its search entries pending (pipeline.merge.PENDING_LIST_LIMIT).
        transaction.on_commit(lambda: task_send(search_indexes_settle_task, args=(), queue=settings.CELERY_TASK_DEFAULT_QUEUE))
    if changed and not succeeded:
        run_scratch_clear(run_id=run_id)


def search_indexes_settle() -> dict[str, int]:
    """Flush what the runs' merges left pending in the claims' GIN indexes into them, so that
    searches read the indexes alone again (pipeline.merge.PENDING_LIST_LIMIT), and mark the
    pages the runs wrote all-visible, so that the queue's walks read its order's index alone
    again (pipeline.merge.VACUUM_CLAIMS). Idempotent: a second call finds nothing pending.
    Returns the pages flushed per index."""
    return settle_indexes(database_url_for_job())


def run_scratch_clear(*, run_id: int) -> None:
    """Delete what a run staged for a merge it never finished (the merge's own tables)."""
    clear_staging(database_url_for_job(), run_id=run_id)


@dataclass
class ReapResult:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)
    imports_sent: list[int] = field(default_factory=list)
    factcheck_imports_sent: list[int] = field(default_factory=list)
    bulk_actions_sent: list[int] = field(default_factory=list)
    factcheck_matches_sent: list[int] = field(default_factory=list)
    refits_sent: list[int] = field(default_factory=list)
    refits_failed: list[int] = field(default_factory=list)


def runs_reap() -> ReapResult:
    """The periodic sweep (Celery beat) that keeps runs from waiting forever:

    1. a running run whose heartbeat is older than STALE_SECONDS lost its worker (a killed
       pool child, a dead worker host): its attempt ends as a failure, so it is queued again
       or failed after its last attempt, and its staged rows are deleted;
    2. a queued run that is due and whose message was never sent (the broker was down) or was
       sent RESEND_SECONDS ago gets its message (again: a lost message is no loss);
    3. a queued import (of articles or fact-checks) or bulk action whose message could not be sent gets it;
    4. library fact-checks still to be matched against the queue whose message was not sent
       (or was lost) get it;
    5. a model refit whose message could not be sent gets it, and one whose worker died fails.
    """
    from factcheck.articles.services import import_batches_resend
    from factcheck.claims.queue.services import bulk_actions_resend
    from factcheck.factchecks.services import factcheck_imports_resend, factchecks_match_resend
    from factcheck.learning.services import refit_jobs_reap, refit_jobs_resend

    result = ReapResult()
    now = timezone.now()
    stale_before = now - timedelta(seconds=settings.FACTCHECK_RUN_STALE_SECONDS)
    with transaction.atomic():
        stale = (
            PipelineRun.objects.select_for_update(skip_locked=True)
            .filter(status=PipelineRun.Status.RUNNING)
            .filter(Q(heartbeat_at__lt=stale_before) | Q(heartbeat_at__isnull=True, started_at__lt=stale_before))
        )
        for run in stale:
            seen = run.heartbeat_at or run.started_at
            error = f"The worker ({run.worker or 'unknown'}) stopped answering: no heartbeat since {seen:%Y-%m-%d %H:%M:%S} UTC."
            fields = _attempt_end(attempt=run.attempts, error=error, retry=True, now=now)
            PipelineRun.objects.filter(pk=run.pk).update(**fields)
            (result.requeued if fields["status"] == PipelineRun.Status.QUEUED else result.failed).append(run.pk)
    for run_id in result.requeued + result.failed:
        run_scratch_clear(run_id=run_id)
    due = (
        PipelineRun.objects.filter(status=PipelineRun.Status.QUEUED)
        .filter(Q(not_before__isnull=True) | Q(not_before__lte=now))
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=now - timedelta(seconds=settings.FACTCHECK_RUN_RESEND_SECONDS)))
        .order_by("created_at")
        .values_list("pk", flat=True)
    )
    for run_id in due:
        if not run_send(run_id=run_id):
            break  # the broker is down: the next sweep tries again
        result.sent.append(run_id)
    result.imports_sent = import_batches_resend()
    result.factcheck_imports_sent = factcheck_imports_resend()
    result.bulk_actions_sent = bulk_actions_resend()
    result.factcheck_matches_sent = factchecks_match_resend()
    result.refits_failed = refit_jobs_reap()
    result.refits_sent = refit_jobs_resend()
    if any(astuple(result)):
        logger.info("Reaper: %s", result)
    return result
