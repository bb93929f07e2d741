"""API rate limits: per user for tokens and sessions, per client address for anonymous
requests. The rates are read from the settings at each request, so a deployment (or a test)
changes them without re-importing DRF.

Each request is counted in one atomic step: a Redis script increments the key's count and
starts its window (INCR, and PEXPIRE on the first request of a window). DRF's own throttle
reads the count and then writes it back, so 100 parallel requests let 95 through against a
limit of 60. While Redis is away each process counts in its own memory, with the same limit
(so with N web processes at most N x the rate gets through, never everything).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from factcheck.accounts.ratelimit import client_address
from factcheck.cache import UNREACHABLE

logger = logging.getLogger(__name__)

# KEYS[1]: the counter; ARGV[1]: the window in milliseconds. Returns {count, ms left}.
_COUNT_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}
"""


class LocalWindows:
    """The fallback while Redis is away: fixed windows in this process's memory."""

    MAX_KEYS = 100_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[float, int]] = {}  # key: (window ends, count)

    def count(self, key: str, window: float) -> tuple[int, float]:
        now = time.monotonic()
        with self._lock:
            ends, count = self._windows.get(key, (0.0, 0))
            if ends <= now:
                if len(self._windows) >= self.MAX_KEYS:
                    self._windows = {k: v for k, v in self._windows.items() if v[0] > now}
                ends, count = now + window, 0
            self._windows[key] = (ends, count + 1)
            return count + 1, ends - now


LOCAL_WINDOWS = LocalWindows()
_last_warning = 0.0


def window_count(key: str, window_seconds: int) -> tuple[int, float]:
    """Count one request under `key`: (requests in the current window, seconds it has left)."""
    global _last_warning
    redis_key = cache.make_key(key)
    try:
        client: Any = cache._cache.get_client(redis_key, write=True)  # type: ignore[attr-defined]
        count, left_ms = client.eval(_COUNT_SCRIPT, 1, redis_key, window_seconds * 1000)
        return int(count), int(left_ms) / 1000
    except UNREACHABLE as exc:
        now = time.monotonic()
        if now - _last_warning > 30:
            _last_warning = now
            logger.warning("Rate limits counted in process memory: Redis is unreachable (%s)", exc)
        return LOCAL_WINDOWS.count(key, window_seconds)


class AtomicRateThrottle(SimpleRateThrottle):
    """DRF's throttle interface, counted by window_count instead of a read-then-write history."""

    _left = 0.0

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        limit, window = self.parse_rate(self.rate)
        assert limit is not None and window is not None
        count, self._left = window_count(key, window)
        return count <= limit

    def wait(self) -> float:
        return float(max(1, math.ceil(self._left)))


class ApiUserThrottle(AtomicRateThrottle, UserRateThrottle):
    scope = "api-user"

    def get_rate(self) -> str:
        return str(settings.FACTCHECK_API_RATE_USER)


class ApiAnonThrottle(AtomicRateThrottle, AnonRateThrottle):
    scope = "api-anon"

    def get_rate(self) -> str:
        return str(settings.FACTCHECK_API_RATE_ANON)

    def get_ident(self, request: Request) -> str:
        # The same client address the login throttle uses (trusted proxy settings included).
        return client_address(request._request)
