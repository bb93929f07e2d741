from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from factcheck.articles.models import Article, ImportBatch, Outlet


@admin.register(Outlet)
class OutletAdmin(admin.ModelAdmin):
    search_fields = ["name", "domain"]


@admin.register(Article)
class ArticleAdmin(admin.ModelAdmin):
    list_display = ["display_title", "outlet", "author", "published_at", "created_at"]
    list_filter = ["outlet"]
    search_fields = ["title", "url", "content_hash"]
    list_select_related = ["outlet"]
    readonly_fields = ["content_hash", "text", "import_batch", "created_at"]


@admin.register(ImportBatch)
class ImportBatchAdmin(admin.ModelAdmin):
    # The changelist carries an "Import articles" button to the upload page (see its template).
    change_list_template = "admin/articles/importbatch/change_list.html"
    list_display = ["id", "source", "status", "rows_read", "rows_stored", "rows_duplicate", "rows_rejected", "created_at", "progress_page"]
    list_filter = ["status", "format"]
    readonly_fields = [f.name for f in ImportBatch._meta.fields]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ImportBatch]:
        return super().get_queryset(request).defer("errors")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # batches are made by importing, on the upload page

    @admin.display(description="Progress")
    def progress_page(self, batch: ImportBatch) -> str:
        return format_html('<a href="{}">Show</a>', reverse("articles:detail", args=[batch.pk]))
