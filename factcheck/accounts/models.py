from django.db import models


class LoginThrottle(models.Model):
    """Login attempts counted in one window per key: an account at a client address, or an
    address (factcheck/accounts/ratelimit.py). In PostgreSQL so the count and the check are
    one upsert, and logins stay throttled when Redis is away."""

    key = models.CharField(max_length=100, primary_key=True)
    attempts = models.PositiveIntegerField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "login_throttles"
