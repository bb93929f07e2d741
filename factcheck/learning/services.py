"""Writes to model versions and refit jobs: each audited, each guarded by its state."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from factcheck.audit.services import audit_record
from factcheck.learning import selectors
from factcheck.learning.models import ModelKind, ModelVersion, RefitJob
from factcheck.queueing import queued_row_send, queued_rows_resend


def model_store_path(version: ModelVersion) -> Path | None:
    """The version's artifact directory, or None for the artifact shipped in the repository."""
    if version.is_shipped:
        return None
    return Path(settings.FACTCHECK_MODEL_STORE) / version.artifact_dir


def _version_state(version: ModelVersion) -> dict[str, Any]:
    return {"label": version.label, "state": version.state}


def model_version_register(
    *,
    kind: str,
    label: str,
    artifact_dir: str,
    metrics: dict[str, Any],
    by: User | None,
    parent: ModelVersion | None = None,
    notes: str = "",
) -> ModelVersion:
    """A candidate version whose artifact is already written under the model store."""
    if kind not in ModelKind.values:
        raise ValidationError({"kind": f"Unknown model kind {kind!r}."})
    store = Path(settings.FACTCHECK_MODEL_STORE).resolve()
    if not artifact_dir:
        raise ValidationError({"artifact_dir": "A refit's artifact lives under the model store; only the shipped version has none."})
    where = (store / artifact_dir).resolve()
    if not where.is_relative_to(store) or not where.is_dir():
        raise ValidationError({"artifact_dir": f"No artifact directory {artifact_dir!r} under the model store."})
    version = ModelVersion(kind=kind, label=label, artifact_dir=artifact_dir, metrics=metrics, parent=parent, notes=notes, created_by=by)
    version.full_clean()
    with transaction.atomic():
        version.save()
        audit_record(actor=by, verb="model_version_register", object_type="model_version", object_id=version.pk, after=_version_state(version))
    return version


def _promotion_refusal(version: ModelVersion) -> str | None:
    before, after = version.figure("before"), version.figure("after")
    if before is None or after is None:
        return "This version has no figures on held-out decisions of the desk to compare with the active one."
    if after < before:
        return (
            f"This version is worse than the active one on the desk's held-out decisions "
            f"({version.primary_metric} {after:.3f} against {before:.3f}); it is not switched on."
        )
    return None


def model_version_promote(*, version: ModelVersion, by: User | None) -> ModelVersion:
    """Make a candidate the active version of its kind; the active one retires."""
    with transaction.atomic():
        # Lock the kind's versions: two admins promoting at once take turns.
        locked = {v.pk: v for v in ModelVersion.objects.select_for_update().filter(kind=version.kind)}
        version = locked[version.pk]
        if version.state != ModelVersion.State.CANDIDATE:
            raise ValidationError(f"Only a candidate can be promoted; {version.label} is {version.get_state_display().lower()}.")
        refusal = _promotion_refusal(version)
        if refusal:
            raise ValidationError(refusal)
        current = next((v for v in locked.values() if v.state == ModelVersion.State.ACTIVE), None)
        if current is not None:
            current.state = ModelVersion.State.RETIRED
            current.save(update_fields=["state"])
        version.state = ModelVersion.State.ACTIVE
        version.promoted_at = timezone.now()
        version.promoted_by = by
        version.save(update_fields=["state", "promoted_at", "promoted_by"])
        audit_record(
            actor=by, verb="model_version_promote", object_type="model_version", object_id=version.pk,
            before={"active": current.label if current else None}, after={"active": version.label},
        )
    return version


def model_version_rollback(*, kind: str, by: User | None) -> ModelVersion:
    """Restore the version that was active before the current one."""
    with transaction.atomic():
        list(ModelVersion.objects.select_for_update().filter(kind=kind))
        current = selectors.active_version(kind)
        previous = selectors.previous_version(kind)
        if previous is None:
            raise ValidationError(f"{current.label} is the only version of this model that was ever active; there is nothing to roll back to.")
        current.state = ModelVersion.State.RETIRED
        current.save(update_fields=["state"])
        previous.state = ModelVersion.State.ACTIVE
        # Promoted again: the next rollback goes back past this one, not to the version just left.
        previous.promoted_at = timezone.now()
        previous.promoted_by = by
        previous.save(update_fields=["state", "promoted_at", "promoted_by"])
        # The version left is no rollback target any more (it was worse, or the admin says so).
        current.promoted_at = None
        current.save(update_fields=["promoted_at"])
        audit_record(
            actor=by, verb="model_version_rollback", object_type="model_version", object_id=previous.pk,
            before={"active": current.label}, after={"active": previous.label},
        )
    return previous


def refit_request(*, kind: str, by: User) -> RefitJob:
    """Queue a refit of `kind`; refused while one is queued or running."""
    from factcheck.learning.registry import refit_for

    if refit_for(kind) is None:
        raise ValidationError(f"No refit is available for {kind}.")
    try:
        with transaction.atomic():
            job = RefitJob.objects.create(kind=kind, requested_by=by)
            audit_record(actor=by, verb="refit_request", object_type="refit_job", object_id=job.pk, after={"kind": kind})
            transaction.on_commit(lambda: refit_job_send(job_id=job.pk))
    except IntegrityError:
        raise ValidationError("A refit of this model is already queued or running.") from None
    return job


REFIT_UNAVAILABLE = "The task queue is unavailable; the refit will start when it answers."


def refit_job_send(*, job_id: int) -> bool:
    from factcheck.learning.tasks import learning_refit

    return queued_row_send(
        learning_refit, queued=RefitJob.objects.filter(status=RefitJob.Status.QUEUED), pk=job_id,
        queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=REFIT_UNAVAILABLE,
    )


def refit_jobs_resend() -> list[int]:
    """Queued refits whose message could not be sent (the broker was down) get it now."""
    from factcheck.learning.tasks import learning_refit

    return queued_rows_resend(
        learning_refit, queued=RefitJob.objects.filter(status=RefitJob.Status.QUEUED),
        queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=REFIT_UNAVAILABLE,
    )


def refit_job_claim(*, job_id: int) -> RefitJob | None:
    """Take a queued job for this worker: None when it is gone or someone else has it."""
    claimed = RefitJob.objects.filter(pk=job_id, status=RefitJob.Status.QUEUED).update(
        status=RefitJob.Status.RUNNING, started_at=timezone.now(), error=""
    )
    return RefitJob.objects.get(pk=job_id) if claimed == 1 else None


def refit_job_finish(*, job: RefitJob, version: ModelVersion | None, error: str = "") -> None:
    job.status = RefitJob.Status.FAILED if error else RefitJob.Status.DONE
    job.version = version
    job.error = error[-4000:]
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "version", "error", "finished_at"])


def refit_jobs_reap() -> list[int]:
    """Running jobs that outlived the task's hard limit lost their worker (a killed pool
    child or host): they fail, so the kind can be refit again."""
    cutoff = timezone.now() - timedelta(seconds=settings.FACTCHECK_REFIT_TIME_LIMIT + 60)
    stale = list(RefitJob.objects.filter(status=RefitJob.Status.RUNNING, started_at__lt=cutoff).values_list("pk", flat=True))
    RefitJob.objects.filter(pk__in=stale, status=RefitJob.Status.RUNNING).update(
        status=RefitJob.Status.FAILED, finished_at=timezone.now(), error="The worker stopped before the refit finished; ask again."
    )
    return stale
