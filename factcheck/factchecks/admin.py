from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from factcheck.factchecks.models import ClaimMatch, FactCheck, FactCheckImport

# The fields the matching engine reads (factchecks.matching.LibraryEntry).
MATCHED_FIELDS = {"claim", "title", "summary", "rating_text", "url", "published_on", "publisher"}


@admin.register(FactCheck)
class FactCheckAdmin(admin.ModelAdmin):
    list_display = ["claim", "publisher", "rating_text", "rating_value", "published_on", "source"]
    list_filter = ["source", "publisher", "rating_value"]
    search_fields = ["claim", "title", "speaker", "external_id"]
    readonly_fields = [
        "source", "external_id", "verdict", "import_batch", "content_hash", "created_at", "updated_at", "match_pending_since", "match_sent_at",
    ]

    def save_model(self, request: HttpRequest, obj: FactCheck, form: Any, change: bool) -> None:
        # An edit to what the matcher reads makes the entry pending again: the reaper's next
        # sweep has the queue matched against it.
        if not change or MATCHED_FIELDS & set(form.changed_data):
            obj.match_pending_since, obj.match_sent_at = timezone.now(), None
        super().save_model(request, obj, form, change)


@admin.register(ClaimMatch)
class ClaimMatchAdmin(admin.ModelAdmin):
    list_display = ["claim", "factcheck", "score", "rank", "status", "decided_by", "decided_at"]
    list_filter = ["status"]
    list_select_related = ["claim", "factcheck", "decided_by"]
    raw_id_fields = ["claim", "factcheck"]
    # Decisions are audited: they are made on the claim page (claim_match_decide), not here.
    readonly_fields = ["claim", "factcheck", "score", "rank", "status", "decided_by", "decided_at", "version", "created_at", "updated_at"]


@admin.register(FactCheckImport)
class FactCheckImportAdmin(admin.ModelAdmin):
    list_display = [
        "id", "source", "layout", "status", "rows_read", "rows_created", "rows_updated", "rows_unchanged", "rows_rejected", "created_at", "progress_page",
    ]
    list_filter = ["status", "layout"]
    readonly_fields = [f.name for f in FactCheckImport._meta.fields]

    def get_queryset(self, request: HttpRequest) -> QuerySet[FactCheckImport]:
        return super().get_queryset(request).defer("errors")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # imports are made on the upload page (factchecks:import)

    @admin.display(description="Progress")
    def progress_page(self, batch: FactCheckImport) -> str:
        return format_html('<a href="{}">Show</a>', reverse("factchecks:import_detail", args=[batch.pk]))
