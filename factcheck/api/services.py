"""Writes for API tokens."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from factcheck.api.models import ApiToken

TOKEN_PREFIX = "fct_"
# last_used_at is written at most this often per token, so reads stay reads.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@transaction.atomic
def api_token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token for `user`; returns the row and the secret (shown once, never stored)."""
    if not user.is_active:
        raise ValidationError("An inactive user cannot get an API token.")
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user=user, name=name.strip(), key_hash=token_hash(secret), prefix=secret[: len(TOKEN_PREFIX) + 4])
    token.full_clean()
    token.save()
    return token, secret


def api_token_touch(*, token: ApiToken) -> None:
    """Record that the token was used, once per LAST_USED_RESOLUTION (a conditional UPDATE,
    so concurrent requests write it once)."""
    now = timezone.now()
    if token.last_used_at is not None and now - token.last_used_at < LAST_USED_RESOLUTION:
        return
    stale = now - LAST_USED_RESOLUTION
    ApiToken.objects.filter(Q(last_used_at__isnull=True) | Q(last_used_at__lt=stale), pk=token.pk).update(last_used_at=now)
    token.last_used_at = now


def api_token_revoke(*, token: ApiToken) -> None:
    token.delete()
