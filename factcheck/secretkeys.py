"""Secret keys unfit for production: refused at start outside debug and tests (settings.py)."""

from __future__ import annotations

# Placeholders seen in tutorials, templates and .env examples, compared lower-cased.
WEAK_SECRET_KEYS = frozenset({
    "changeme", "change-me", "change_me", "changethis", "secret", "secretkey", "secret-key", "secret_key", "password",
    "django", "default", "development", "dev", "test", "testing", "xxx", "...", "your-secret-key",
    "your_secret_key", "yoursecretkey", "replace-me", "replaceme", "notsecret", "not-secret", "12345678", "123456",
})


def secret_key_weakness(key: str) -> str:
    """Why a SECRET_KEY is unfit outside debug and tests, or '' when it is fine."""
    if key.strip().lower() in WEAK_SECRET_KEYS:
        return f"a known placeholder ({key.strip()[:20]!r})"
    if key.startswith("django-insecure-"):
        return "Django's generated development key (django-insecure-...)"
    if len(key) < 32 or len(set(key)) < 8:
        return f"too weak ({len(key)} characters, {len(set(key))} different)"
    return ""
