"""The local news site (tests/sources/newsserver.py) and fetch settings fast enough for tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from factcheck.sources.fetcher import Fetcher, FetchLimits
from tests.sources.newsserver import BBC, NewsServer, SiteState, load_stories, serve

FAST_LIMITS = FetchLimits(
    user_agent="FactcheckBot/1.0 (tests)", connect_timeout=1.0, read_timeout=0.5, total_seconds=4.0, max_redirects=5,
    max_bytes=2 * 1024 * 1024, max_decoded_bytes=4 * 1024 * 1024, retries=2, backoff_seconds=0.01, host_delay_seconds=0.0,
)


@pytest.fixture(scope="session")
def news_site() -> Iterator[NewsServer]:
    stories = load_stories(limit=400)
    if len(stories) < 400:
        pytest.skip(f"The sources tests serve the BBC corpus, not found under {BBC.parent} (set FACTCHECK_SHARED_DATA).")
    yield from serve(SiteState(stories=stories))


@pytest.fixture
def site(news_site: NewsServer) -> NewsServer:
    """The news site with this test's own feeds and counters."""
    news_site.state.feeds = {}
    news_site.state.hits = Counter()
    news_site.state.etag_checks = Counter()
    news_site.state.slow_seconds = 3.0
    return news_site


@pytest.fixture
def fetcher() -> Fetcher:
    """A fetcher that may reach the test site by its name (as an admin allows a host)."""
    return Fetcher(limits=FAST_LIMITS, allowed_hosts=frozenset({"localhost"}))


@pytest.fixture
def fast_fetch(settings, db):
    """The workers' fetcher (services.fetcher_create) with the test limits, and the test site's
    host allowed by an admin."""
    from factcheck.sources.models import AllowedHost

    settings.FACTCHECK_FETCH_CONNECT_TIMEOUT = FAST_LIMITS.connect_timeout
    settings.FACTCHECK_FETCH_READ_TIMEOUT = FAST_LIMITS.read_timeout
    settings.FACTCHECK_FETCH_TOTAL_SECONDS = FAST_LIMITS.total_seconds
    settings.FACTCHECK_FETCH_MAX_BYTES = FAST_LIMITS.max_bytes
    settings.FACTCHECK_FETCH_MAX_DECODED_BYTES = FAST_LIMITS.max_decoded_bytes
    settings.FACTCHECK_FETCH_BACKOFF_SECONDS = FAST_LIMITS.backoff_seconds
    settings.FACTCHECK_FETCH_HOST_DELAY_SECONDS = 0.0
    AllowedHost.objects.create(host="localhost", note="the tests' news site")
