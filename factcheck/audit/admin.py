from django.contrib import admin

from factcheck.audit.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor", "verb", "object_type", "object_id"]
    list_filter = ["verb", "object_type"]
    readonly_fields = [f.name for f in AuditEvent._meta.fields]
