"""Login throttling against password guessing, for every login form (the app's and the admin's).

The authentication backend counts each attempt before it checks a password, per
account+address and per address, in one PostgreSQL upsert that returns the new counts
(login_attempt.sql); an attempt past a limit is refused without the password being checked.
A successful login clears its account's count at that address and gives the address its
attempt back, so the people behind one address are not locked out by each other's logins.

The client address is REMOTE_ADDR unless the app runs behind a proxy that says who the
client is (DJANGO_TRUSTED_PROXY_HEADER, e.g. HTTP_X_REAL_IP or HTTP_X_FORWARDED_FOR, and
DJANGO_TRUSTED_PROXY_COUNT): without it every user would share the proxy's address.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.http import HttpRequest
from django.utils import timezone

from factcheck.accounts.models import LoginThrottle


@cache
def _attempt_sql() -> str:
    return Path(__file__).with_name("login_attempt.sql").read_text()


@dataclass(frozen=True)
class Throttle:
    key: str
    limit: int


def client_address(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the entry a trusted proxy added.

    A proxy appends the address it saw to X-Forwarded-For, so the client is the entry
    DJANGO_TRUSTED_PROXY_COUNT places from the right; entries further left were sent by the
    client itself and prove nothing. X-Real-IP holds one address, set by the proxy.
    """
    header = settings.FACTCHECK_TRUSTED_PROXY_HEADER
    if header:
        entries = [part.strip() for part in request.META.get(header, "").split(",") if part.strip()]
        if entries:
            return entries[-min(settings.FACTCHECK_TRUSTED_PROXY_COUNT, len(entries))]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _throttles(request: HttpRequest, username: str) -> list[Throttle]:
    address = client_address(request)
    account = hashlib.sha256(f"{username.strip().lower()}|{address}".encode()).hexdigest()[:32]
    return [
        Throttle(f"account:{account}", settings.FACTCHECK_LOGIN_MAX_FAILURES),
        Throttle(f"address:{hashlib.sha256(address.encode()).hexdigest()[:32]}", settings.FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS),
    ]


def login_attempt(request: HttpRequest, username: str) -> bool:
    """Count this attempt; True when it is within every limit (the password may be checked)."""
    throttles = _throttles(request, username)
    with connection.cursor() as cursor:
        cursor.execute(_attempt_sql(), {"keys": [t.key for t in throttles], "window": settings.FACTCHECK_LOGIN_WINDOW_SECONDS})
        counts = dict(cursor.fetchall())
    if max(counts.values()) == 1:
        # A new window somewhere: a good moment to forget the windows that have passed.
        LoginThrottle.objects.filter(expires_at__lt=timezone.now() - timedelta(seconds=60)).delete()
    return all(counts[t.key] <= t.limit for t in throttles)


def login_succeeded(request: HttpRequest, username: str) -> None:
    account, address = _throttles(request, username)
    LoginThrottle.objects.filter(key=account.key).delete()
    LoginThrottle.objects.filter(key=address.key, attempts__gt=0).update(attempts=F("attempts") - 1)
