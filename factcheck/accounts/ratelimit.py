"""Login throttling against password guessing.

Failed logins are counted in the shared cache (Redis, so every web process sees the same
counts) per username+address and per address. Past the limit the form refuses without
checking the password until the window has passed; a successful login clears the
username's count.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest


@dataclass(frozen=True)
class Throttle:
    key: str
    limit: int


def client_address(request: HttpRequest) -> str:
    # Behind a proxy set DJANGO_TRUSTED_PROXY_HEADER (e.g. HTTP_X_REAL_IP) to the header it sets.
    header = settings.FACTCHECK_TRUSTED_PROXY_HEADER
    if header and request.META.get(header):
        return request.META[header].split(",")[0].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _throttles(request: HttpRequest, username: str) -> list[Throttle]:
    address = client_address(request)
    user_key = hashlib.sha256(f"{username.strip().lower()}|{address}".encode()).hexdigest()[:32]
    return [
        Throttle(f"login-fail:user:{user_key}", settings.FACTCHECK_LOGIN_MAX_FAILURES),
        Throttle(f"login-fail:addr:{address}", settings.FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS),
    ]


def login_blocked(request: HttpRequest, username: str) -> bool:
    counts = cache.get_many([t.key for t in _throttles(request, username)])
    return any(counts.get(t.key, 0) >= t.limit for t in _throttles(request, username))


def login_failed(request: HttpRequest, username: str) -> None:
    window = settings.FACTCHECK_LOGIN_WINDOW_SECONDS
    for throttle in _throttles(request, username):
        # add() starts the window once; incr() keeps its expiry.
        if not cache.add(throttle.key, 1, timeout=window):
            try:
                cache.incr(throttle.key)
            except ValueError:
                cache.set(throttle.key, 1, timeout=window)


def login_succeeded(request: HttpRequest, username: str) -> None:
    cache.delete(_throttles(request, username)[0].key)
