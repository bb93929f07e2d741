"""A Redis cache that answers "nothing there" while Redis is unreachable.

Every page reads the session through the cache (`cached_db` sessions), so a cache that raises
takes the whole site down with Redis. This one logs and degrades instead: reads miss (the
session backend then reads PostgreSQL, which always holds every session), writes and deletes
are dropped. Only connection failures and timeouts are swallowed; any other error still
raises. Known cost while Redis is down: the login throttle counts nothing (it fails open).

A session deleted while Redis is unreachable (a logout) is still in a Redis that comes back
with its data (the project's Redis keeps its data across restarts): SessionCache keeps
sessions there for FACTCHECK_SESSION_CACHE_SECONDS at most, which bounds how long such a
session can be read back; after that each session is read from PostgreSQL and cached again.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

UNREACHABLE = (RedisConnectionError, RedisTimeoutError)
WARN_EVERY_SECONDS = 30.0
T = TypeVar("T")


class ReusedClientRedisCacheClient(RedisCacheClient):
    """Django's client builds a new redis.Redis around its connection pool for every cache
    operation (its table of response callbacks each time: a page's several session, token and
    count reads paid for it several times). A redis.Redis is safe to share across threads, so
    each pool gets one, built once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]  # Django's own helper; its stubs leave it out
        if (client := self._clients.get(id(pool))) is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]  # redis.Redis, as Django's get_client
        return client


class FailSoftRedisCache(RedisCache):
    _last_warning = 0.0

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient

    def _soft(self, operation: str, call: Callable[[], T], fallback: T) -> T:
        try:
            return call()
        except UNREACHABLE as exc:
            now = time.monotonic()
            if now - FailSoftRedisCache._last_warning > WARN_EVERY_SECONDS:
                FailSoftRedisCache._last_warning = now
                logger.warning("Cache unreachable (%s: %s); going on without it", operation, exc)
            return fallback

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._soft("add", lambda: super(FailSoftRedisCache, self).add(key, value, timeout, version), False)

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._soft("get", lambda: super(FailSoftRedisCache, self).get(key, default, version), default)

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        self._soft("set", lambda: super(FailSoftRedisCache, self).set(key, value, timeout, version), None)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._soft("touch", lambda: super(FailSoftRedisCache, self).touch(key, timeout, version), False)

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._soft("delete", lambda: super(FailSoftRedisCache, self).delete(key, version), False)

    def get_many(self, keys: Iterable[Any], version: int | None = None) -> dict[Any, Any]:
        return self._soft("get_many", lambda: super(FailSoftRedisCache, self).get_many(keys, version), {})

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._soft("has_key", lambda: super(FailSoftRedisCache, self).has_key(key, version), False)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        # incr answers an int or raises; None here means the cache was unreachable.
        result: int | None = self._soft("incr", lambda: super(FailSoftRedisCache, self).incr(key, delta, version), None)
        if result is None:
            # What the cache API says for a key that is not there: callers already handle it.
            raise ValueError(f"Key {key!r} not found (the cache is unreachable)")
        return result

    def set_many(self, data: dict[Any, Any], timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> list[Any]:
        return self._soft("set_many", lambda: super(FailSoftRedisCache, self).set_many(data, timeout, version), list(data))

    def delete_many(self, keys: Iterable[Any], version: int | None = None) -> None:
        self._soft("delete_many", lambda: super(FailSoftRedisCache, self).delete_many(keys, version), None)

    def clear(self) -> None:
        self._soft("clear", lambda: super(FailSoftRedisCache, self).clear(), None)


class SessionCache(FailSoftRedisCache):
    """The sessions' cache (SESSION_CACHE_ALIAS): as FailSoftRedisCache, no entry kept longer
    than FACTCHECK_SESSION_CACHE_SECONDS (cached_db asks for the session's whole age)."""

    def get_backend_timeout(self, timeout: Any = DEFAULT_TIMEOUT) -> float | None:
        backend_timeout = super().get_backend_timeout(timeout)
        cap = settings.FACTCHECK_SESSION_CACHE_SECONDS
        return cap if backend_timeout is None else min(backend_timeout, cap)


# Generation.cached: how long one process may hold the computing of a value before others
# stop waiting for it (a worker killed while computing), how long another waits for it, and
# how often it looks.
COMPUTE_CLAIM_SECONDS = 30
COMPUTE_WAIT_SECONDS = 10.0
COMPUTE_POLL_SECONDS = 0.05


class Generation:
    """A token in the default cache that changes whenever something it stands for changes, so
    values derived from that state can be cached under it and never outlive a change: a reader
    takes the token (`current`) before it computes, and keeps what it computed with that token;
    a write calls `changed` in its transaction. A missing token (expired, Redis
    restarted or flushed) is a new one, so nothing cached before it is trusted. While Redis is
    unreachable `current` is None: callers compute afresh."""

    def __init__(self, name: str) -> None:
        self.key = f"generation:{name}"

    def current(self) -> str | None:
        from django.core.cache import cache

        token = cache.get(self.key)
        if token is None:
            token = uuid.uuid4().hex
            # add(): two readers that found none agree on the first one written.
            if not cache.add(self.key, token, None):
                token = cache.get(self.key)
        return token if isinstance(token, str) else None

    def cached(self, key: str, compute: Callable[[], T], timeout: int) -> T:
        """`compute()`, kept under `key` with the token it was computed under and read back
        while that token is current (at most `timeout` seconds); computed afresh without Redis.

        A missing value is computed by one process at a time: the others wait for it (at
        most COMPUTE_WAIT_SECONDS) instead of computing it too. After a change every web
        worker asks for the same counts at once; an exact count of a million claims computed
        by five workers together on two cores took each of them five times as long."""
        from django.core.cache import cache

        token = self.current()
        if token is None:
            return compute()
        found = self._read(key, token)
        if found is not None:
            return found[0]
        claim = f"{key}:computing:{token}"
        took_claim = cache.add(claim, 1, COMPUTE_CLAIM_SECONDS)
        if not took_claim:
            deadline = time.monotonic() + COMPUTE_WAIT_SECONDS
            # Until the value is there, or nobody is computing it any more (the one who
            # was failed, or Redis went away), or the wait is over: then compute it here.
            while time.monotonic() < deadline and cache.get(claim) is not None:
                time.sleep(COMPUTE_POLL_SECONDS)
                if (found := self._read(key, token)) is not None:
                    return found[0]
            if (found := self._read(key, token)) is not None:
                return found[0]
        try:
            value = compute()
            cache.set(key, (token, value), timeout)
        finally:
            if took_claim:  # never another's, still computing after this one stopped waiting
                cache.delete(claim)
        return value

    @staticmethod
    def _read(key: str, token: str) -> tuple[Any] | None:
        """(value,) when `key` holds a value computed under `token`, else None."""
        from django.core.cache import cache

        found = cache.get(key)
        if isinstance(found, tuple) and len(found) == 2 and found[0] == token:
            return (found[1],)
        return None

    def bump(self) -> None:
        from django.core.cache import cache

        cache.set(self.key, uuid.uuid4().hex, None)

    def changed(self) -> None:
        """Call in the writing transaction. Bumps now, for readers on this transaction's
        connection (the rest of the request, or a test's), and again once it commits: a reader
        that took the first new token while the transaction was open computed from the old state."""
        from django.db import transaction

        self.bump()
        transaction.on_commit(self.bump)


# Anything that can change what a queue view lists or counts: an audited change
# (factcheck.audit.services.audit_record), a pipeline run as it ends (its merge writes claims
# and their clusters' state in SQL) and stored match suggestions (the checked_before filter).
QUEUE_CHANGES = Generation("queue-changes")
