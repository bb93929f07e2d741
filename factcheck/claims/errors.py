"""Workflow errors the claim services raise; views turn them into messages, bulk runs into skips."""

from __future__ import annotations

from typing import Any


class WorkflowError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TransitionNotAllowed(WorkflowError):
    pass


class HeldByOther(WorkflowError):
    def __init__(self, holder: Any) -> None:
        super().__init__(f"{holder} is working on this claim.")
        self.holder = holder


class StaleVersion(WorkflowError):
    def __init__(self, claim: Any, changes: dict[str, Any] | None = None) -> None:
        super().__init__("Someone else changed this claim meanwhile; it now shows their changes.")
        self.claim = claim
        self.changes = changes or {}
