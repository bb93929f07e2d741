from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A secret that authenticates API requests as its user.

    Only the token's sha256 is stored: the secret itself is shown once, when it is created,
    so a copy of the database does not hand out working tokens. Revoking deletes the row.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=80, help_text="What the token is for (a script, an integration).")
    key_hash = models.CharField(max_length=64, unique=True, help_text="sha256 (hex) of the secret.")
    prefix = models.CharField(max_length=12, help_text="The secret's first characters, to tell tokens apart.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "api_tokens"
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["user", "name"], name="api_token_user_name_unique")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
