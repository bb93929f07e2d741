from __future__ import annotations

from django.db.models import QuerySet

from factcheck.learning.models import ModelVersion, RefitJob


def active_version(kind: str) -> ModelVersion:
    """The version of `kind` that scores now. The shipped one is created active by a data
    migration and a promotion only ever swaps one active for another, so there is always one."""
    return ModelVersion.objects.get(kind=kind, state=ModelVersion.State.ACTIVE)


def versions(kind: str) -> QuerySet[ModelVersion]:
    return ModelVersion.objects.filter(kind=kind).select_related("created_by", "promoted_by", "parent").order_by("-created_at", "-id")


def previous_version(kind: str) -> ModelVersion | None:
    """The version a rollback restores: the retired one promoted most recently."""
    return (
        ModelVersion.objects.filter(kind=kind, state=ModelVersion.State.RETIRED, promoted_at__isnull=False)
        .order_by("-promoted_at", "-id")
        .first()
    )


def refit_jobs(kind: str, *, limit: int = 5) -> list[RefitJob]:
    return list(RefitJob.objects.filter(kind=kind).select_related("requested_by", "version")[:limit])
