from django.contrib import admin

from factcheck.claims.models import Claim


@admin.register(Claim)
class ClaimAdmin(admin.ModelAdmin):
    list_display = ["sentence", "score", "claim_type", "speaker", "status"]
    list_filter = ["status", "claim_type"]
    search_fields = ["sentence", "speaker"]
    list_select_related = ["article"]
    # Reviewer-side changes go through the workspace's services (audit trail); read-only here.
    readonly_fields = [f.name for f in Claim._meta.fields]
