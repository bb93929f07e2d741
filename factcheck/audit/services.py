from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from factcheck.audit.models import AuditEvent
from factcheck.cache import QUEUE_CHANGES


def audit_record(
    *,
    actor: User | None,
    verb: str,
    object_type: str,
    object_id: int,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    comment: str = "",
) -> AuditEvent:
    """Record a state change. Call inside the service's transaction. QUEUE_CHANGES moves
    on, so what is cached under it (the navigation's counts) is read again."""
    event = AuditEvent(
        actor=actor if actor is not None and actor.is_authenticated else None,
        verb=verb,
        object_type=object_type,
        object_id=object_id,
        before=before or {},
        after=after or {},
        comment=comment,
    )
    event.full_clean()
    event.save()
    QUEUE_CHANGES.changed()
    return event
