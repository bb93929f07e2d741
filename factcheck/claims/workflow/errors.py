"""Why a workflow action was refused. Views turn these into messages; nothing is half-done."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from factcheck.audit.models import AuditEvent


class WorkflowError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TransitionNotAllowed(WorkflowError):
    pass


class HeldByOther(WorkflowError):
    """The claim is assigned to someone else; the caller must ask before taking it (force=True)."""

    def __init__(self, holder: User) -> None:
        super().__init__(f"{holder.get_username()} is working on this claim. Take it over?")
        self.holder = holder


class StaleVersion(WorkflowError):
    """Someone saved in between: `changes` lists what they did since the version the caller saw."""

    def __init__(self, message: str, *, current_version: int, changes: list[AuditEvent], differences: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.current_version = current_version
        self.changes = changes
        # field -> (what the caller submitted, what is stored now), for forms.
        self.differences = differences or {}
