from django.conf import settings
from django.db import models


class AuditEvent(models.Model):
    """One row per state change that matters: who, what, when, before/after, why.

    Written by services in the same transaction as the change itself, never by signals,
    so a change and its audit row commit or roll back together.
    """

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    verb = models.CharField(max_length=64)
    object_type = models.CharField(max_length=32)
    object_id = models.BigIntegerField()
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        db_table = "audit_events"
        indexes = [models.Index(fields=["object_type", "object_id", "created_at"], name="audit_object_idx")]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.verb} {self.object_type}#{self.object_id}"
