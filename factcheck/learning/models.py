"""A model version: one artifact of one kind of model, and where it stands.

The check-worthiness model and the claim matcher each have exactly one active version,
which the pipeline and the web app score with. A refit from the desk's decisions registers
a candidate beside it, with its figures and the active version's on the same held-out
decisions; an admin promotes it or leaves it, and can roll back to the version before.
Labels (a triage decision, a match confirmed or rejected) live in their own domain and
point here, so each says which version suggested what the reviewer decided on.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class ModelKind(models.TextChoices):
    CHECKWORTHINESS = "checkworthiness", "Check-worthiness"
    MATCHING = "matching", "Claim matching"


class ModelVersion(models.Model):
    class State(models.TextChoices):
        CANDIDATE = "candidate", "Candidate"
        ACTIVE = "active", "Active"
        RETIRED = "retired", "Retired"

    kind = models.CharField(max_length=32, choices=ModelKind.choices)
    label = models.CharField(max_length=100)
    state = models.CharField(max_length=16, choices=State.choices, default=State.CANDIDATE)
    # Relative to settings.FACTCHECK_MODEL_STORE; "" is the artifact shipped in the repository.
    artifact_dir = models.CharField(max_length=300, blank=True)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children")
    metrics = models.JSONField(default=dict, blank=True)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    promoted_at = models.DateTimeField(null=True, blank=True)
    promoted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        db_table = "learning_model_versions"
        ordering = ["kind", "-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "label"], name="learning_version_label_unique"),
            models.UniqueConstraint(
                fields=["kind"], condition=models.Q(state="active"), name="learning_one_active_version_per_kind"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.label} ({self.state})"

    @property
    def is_shipped(self) -> bool:
        return self.artifact_dir == ""

    @property
    def primary_metric(self) -> str | None:
        primary = self.metrics.get("primary") if isinstance(self.metrics, dict) else None
        return primary if isinstance(primary, str) else None

    def figure(self, side: str) -> float | None:
        """The primary figure measured for `side` ("before": the active version then;
        "after": this one) on the held-out decisions, or None when it was not measured."""
        primary = self.primary_metric
        figures: Any = self.metrics.get(side) if isinstance(self.metrics, dict) else None
        value = figures.get(primary) if primary and isinstance(figures, dict) else None
        return float(value) if isinstance(value, int | float) else None

    @property
    def figure_before(self) -> float | None:
        return self.figure("before")

    @property
    def figure_after(self) -> float | None:
        return self.figure("after")


class RefitJob(models.Model):
    """An admin's request to refit one kind of model from the desk's decisions. The row is
    the job's state (the Celery message only wakes a worker), so a lost message or a killed
    worker leaves a row that says so and can be asked for again."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=32, choices=ModelKind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    version = models.ForeignKey(ModelVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "learning_refit_jobs"
        ordering = ["-created_at", "-id"]
        constraints = [
            # One refit of a kind at a time: a second press while one runs is refused.
            models.UniqueConstraint(
                fields=["kind"], condition=models.Q(status__in=["queued", "running"]), name="learning_one_open_refit_per_kind"
            ),
        ]

    def __str__(self) -> str:
        return f"refit {self.kind} #{self.pk} ({self.status})"
