from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from factcheck.claims.models import Claim, Evidence, Verdict


@admin.register(Claim)
class ClaimAdmin(admin.ModelAdmin):
    list_display = ["sentence", "score", "claim_type", "speaker", "cluster_status"]
    list_filter = ["cluster__status", "claim_type"]
    search_fields = ["sentence", "speaker"]
    list_select_related = ["article", "cluster"]
    # Reviewer-side changes go through the workspace's services (audit trail); read-only here.
    readonly_fields = [f.name for f in Claim._meta.fields]

    @admin.display(description="status", ordering="cluster__status")
    def cluster_status(self, claim: Claim) -> str:
        return claim.cluster.get_status_display()


class ReadOnlyAdmin(admin.ModelAdmin):
    """Workflow rows change only through the workspace's services (guards + audit rows)."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Verdict)
class VerdictAdmin(ReadOnlyAdmin):
    list_display = ["claim", "revision", "rating", "headline", "status", "author", "approved_by", "approved_at"]
    list_filter = ["status", "rating"]
    list_select_related = ["claim", "author", "approved_by"]


@admin.register(Evidence)
class EvidenceAdmin(ReadOnlyAdmin):
    list_display = ["title", "kind", "url", "added_by", "created_at"]
    list_filter = ["kind"]
    list_select_related = ["added_by"]
