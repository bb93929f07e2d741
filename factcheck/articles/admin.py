from django.contrib import admin

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
    list_display = ["id", "source", "status", "rows_read", "rows_stored", "rows_duplicate", "rows_rejected", "created_at"]
    readonly_fields = [f.name for f in ImportBatch._meta.fields]
