from django.contrib import admin

from factcheck.audit.models import AuditEvent
from factcheck.audit.wording import verb_words


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor", "verb", "what", "object_type", "object_id"]
    list_filter = ["verb", "object_type"]
    readonly_fields = [f.name for f in AuditEvent._meta.fields]

    @admin.display(description="What happened")
    def what(self, event: AuditEvent) -> str:
        return verb_words(event.verb)
