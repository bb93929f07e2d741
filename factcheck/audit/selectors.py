from django.db.models import QuerySet

from factcheck.audit.models import AuditEvent


def audit_timeline(*, object_type: str, object_id: int) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(object_type=object_type, object_id=object_id).select_related("actor").order_by("created_at", "id")
