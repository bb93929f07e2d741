from django.contrib import admin

from factcheck.runs.models import PipelineRun


@admin.register(PipelineRun)
class PipelineRunAdmin(admin.ModelAdmin):
    list_display = ["id", "status", "stage", "articles_count", "sentences_count", "claims_count", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in PipelineRun._meta.fields]
