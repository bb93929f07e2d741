"""Login throttling against password guessing, for every login form (the app's and the admin's).

The authentication backend counts each attempt before it checks a password, per
account+address and per address, in one PostgreSQL upsert that returns the new counts
(login_attempt.sql); an attempt past a limit is refused without the password being checked.
A successful login clears its account's count at that address, gives the address its attempt
back and makes the account known at that address: an address over its own limit locks only the
accounts not known there (login_attempt).

The client address is REMOTE_ADDR unless the connection comes from a trusted proxy
(DJANGO_TRUSTED_PROXIES: loopback, where the project's own nginx connects from) that says who
the client is (DJANGO_TRUSTED_PROXY_HEADER: X-Real-IP, which our nginx sets; or
X-Forwarded-For with DJANGO_TRUSTED_PROXY_COUNT): without it every user would share the
proxy's address, and trusting the header from anyone else would let a client name any address.
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
    remote = request.META.get("REMOTE_ADDR", "")
    # No address: gunicorn on a unix socket, which only the proxy can reach (docs/deployment.md).
    if header and (remote in settings.FACTCHECK_TRUSTED_PROXIES or not remote):
        entries = [part.strip() for part in request.META.get(header, "").split(",") if part.strip()]
        if entries:
            return entries[-min(settings.FACTCHECK_TRUSTED_PROXY_COUNT, len(entries))]
    return remote or "unknown"


# How long an account that signed in from an address stays known there (see login_attempt).
KNOWN_ACCOUNT_DAYS = 30


def _account_hash(request: HttpRequest, username: str) -> str:
    return hashlib.sha256(f"{username.strip().lower()}|{client_address(request)}".encode()).hexdigest()[:32]


def _throttles(request: HttpRequest, username: str) -> list[Throttle]:
    address = client_address(request)
    return [
        Throttle(f"account:{_account_hash(request, username)}", settings.FACTCHECK_LOGIN_MAX_FAILURES),
        Throttle(f"address:{hashlib.sha256(address.encode()).hexdigest()[:32]}", settings.FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS),
    ]


def login_attempt(request: HttpRequest, username: str) -> bool:
    """Count this attempt; True when it is within the limits (the password may be checked).

    The lock is per account and address. The address's own count (many usernames guessed from
    one address) locks only the accounts not known there: one that signed in from this address
    in the last KNOWN_ACCOUNT_DAYS keeps its own limit, so a guesser behind an office's shared
    address no longer locks out everyone who works there."""
    account, address = _throttles(request, username)
    with connection.cursor() as cursor:
        cursor.execute(_attempt_sql(), {"keys": [account.key, address.key], "window": settings.FACTCHECK_LOGIN_WINDOW_SECONDS})
        counts = dict(cursor.fetchall())
    if max(counts.values()) == 1:
        # A new window somewhere: a good moment to forget the windows that have passed.
        LoginThrottle.objects.filter(expires_at__lt=timezone.now() - timedelta(seconds=60)).delete()
    if counts[account.key] > account.limit:
        return False
    if counts[address.key] <= address.limit:
        return True
    return LoginThrottle.objects.filter(key=_known_key(request, username), expires_at__gt=timezone.now()).exists()


def _known_key(request: HttpRequest, username: str) -> str:
    return f"known:{_account_hash(request, username)}"


def login_succeeded(request: HttpRequest, username: str) -> None:
    account, address = _throttles(request, username)
    LoginThrottle.objects.filter(key=account.key).delete()
    LoginThrottle.objects.filter(key=address.key, attempts__gt=0).update(attempts=F("attempts") - 1)
    LoginThrottle.objects.update_or_create(
        key=_known_key(request, username), defaults={"attempts": 0, "expires_at": timezone.now() + timedelta(days=KNOWN_ACCOUNT_DAYS)}
    )
