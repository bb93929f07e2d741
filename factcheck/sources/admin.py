from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from factcheck.sources import services
from factcheck.sources.models import AllowedHost, Source


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "url", "enabled", "poll_minutes", "next_poll_at", "last_success_at", "consecutive_failures", "source_page"]
    list_filter = ["kind", "enabled"]
    search_fields = ["name", "url"]
    fields = ["name", "kind", "url", "enabled", "poll_minutes", "max_items"]
    actions = ["poll_now"]

    @admin.display(description="Page")
    def source_page(self, source: Source) -> str:
        return format_html('<a href="{}">Show</a>', reverse("sources:detail", args=[source.pk]))

    @admin.action(description="Poll the selected sources now")
    def poll_now(self, request: HttpRequest, queryset: QuerySet[Source]) -> None:
        for source in queryset:
            services.source_poll_now(source=source)
        messages.success(request, f"{queryset.count()} sources are due now; beat sends their polls within a minute.")

    def save_model(self, request: HttpRequest, obj: Source, form: object, change: bool) -> None:
        obj.full_clean()  # a new source's next_poll_at is empty: due at once
        super().save_model(request, obj, form, change)


@admin.register(AllowedHost)
class AllowedHostAdmin(admin.ModelAdmin):
    list_display = ["host", "note", "created_at"]
    search_fields = ["host"]

    def save_model(self, request: HttpRequest, obj: AllowedHost, form: object, change: bool) -> None:
        obj.host = obj.host.strip().lower().rstrip(".")
        super().save_model(request, obj, form, change)
