"""Issue 31, item 4: the API rate limit leaked. Its count was read and then written, so 100
parallel anonymous requests let 95 and 76 through against a limit of 60; with Redis down all
100 passed. Now each request is counted in one atomic Redis step, and in process memory while
Redis is away."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import cache
from django.db import connections
from django.test import Client, override_settings

from factcheck.api.throttling import LOCAL_WINDOWS, window_count
from tests.web.test_redis_down import cache_at_closed_port

PARALLEL = 100
LIMIT = 60


@pytest.fixture(autouse=True)
def fresh_local_windows() -> Iterator[None]:
    yield
    LOCAL_WINDOWS._windows.clear()


def test_parallel_counts_are_exact() -> None:
    key = f"throttle_test_{uuid.uuid4().hex}"
    with ThreadPoolExecutor(max_workers=32) as pool:
        counts = sorted(count for count, _ in pool.map(lambda _: window_count(key, 60), range(PARALLEL)))
    cache.delete(key)
    assert counts == list(range(1, PARALLEL + 1))


@pytest.mark.django_db(transaction=True)
@override_settings(FACTCHECK_API_RATE_ANON=f"{LIMIT}/minute")
def test_100_parallel_anonymous_requests_against_a_limit_of_60_let_60_through() -> None:
    address = f"192.0.2.{uuid.uuid4().int % 250}"
    cache.delete(f"throttle_api-anon_{address}")

    def one(_: int) -> int:
        try:
            return Client(REMOTE_ADDR=address).get("/api/v1/claims/").status_code
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(one, range(PARALLEL)))
    cache.delete(f"throttle_api-anon_{address}")
    # Anonymous requests are answered 401 (no credentials) while within the rate, 429 past it.
    assert statuses.count(429) == PARALLEL - LIMIT and statuses.count(401) == LIMIT


@pytest.mark.django_db
@override_settings(FACTCHECK_API_RATE_ANON=f"{LIMIT}/minute")
def test_with_redis_down_the_limit_holds_in_process_memory(settings) -> None:  # type: ignore[no-untyped-def]
    cache_at_closed_port(settings)
    address = f"192.0.2.{uuid.uuid4().int % 250}-{uuid.uuid4().hex[:6]}"
    statuses = [Client(REMOTE_ADDR=address).get("/api/v1/claims/").status_code for _ in range(PARALLEL)]
    assert statuses.count(429) == PARALLEL - LIMIT
    refused = Client(REMOTE_ADDR=address).get("/api/v1/claims/")
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 60
