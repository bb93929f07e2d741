"""``{{ event|claim_event }}``: a claim's audit event in people's words (factcheck/audit/wording.py)."""

from __future__ import annotations

from django import template

from factcheck.audit.models import AuditEvent
from factcheck.audit.wording import event_words
from factcheck.claims.models import Claim

register = template.Library()


def _status_label(value: str) -> str:
    try:
        return str(Claim.Status(value).label)
    except ValueError:
        return value


@register.filter(name="claim_event")
def claim_event_filter(event: AuditEvent) -> str:
    return event_words(event, status_label=_status_label)
