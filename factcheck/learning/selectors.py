from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from factcheck.learning.models import ModelVersion, RefitJob

SHIPPED_LABEL = "shipped"


def active_version(kind: str) -> ModelVersion:
    """The version of `kind` that scores now. The shipped one is created active by a data
    migration and a promotion only ever swaps one active for another, so there is one; a
    database that lost it (every table flushed, rows deleted by hand) gets the shipped one
    back as active rather than failing every run, re-match and decision."""
    version = ModelVersion.objects.filter(kind=kind, state=ModelVersion.State.ACTIVE).first()
    return version if version is not None else _shipped_restored(kind)


def _shipped_restored(kind: str) -> ModelVersion:
    try:
        with transaction.atomic():
            version, _ = ModelVersion.objects.get_or_create(
                kind=kind, label=SHIPPED_LABEL,
                defaults={"state": ModelVersion.State.ACTIVE, "promoted_at": timezone.now(), "notes": "The model shipped with this release."},
            )
            if version.state != ModelVersion.State.ACTIVE:
                version.state = ModelVersion.State.ACTIVE
                version.save(update_fields=["state"])
    except IntegrityError:
        # Another process restored it (or promoted a version) at the same moment.
        return ModelVersion.objects.get(kind=kind, state=ModelVersion.State.ACTIVE)
    return version


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
