from django.contrib import admin
from django.http import HttpRequest

from factcheck.api.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are created with `manage.py create_api_token` (the secret is shown once there);
    here they are listed and revoked (deleted)."""

    list_display = ["name", "user", "prefix", "created_at", "last_used_at"]
    list_filter = ["user"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ["user", "name", "prefix", "key_hash", "created_at", "last_used_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        return False
