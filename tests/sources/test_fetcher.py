"""The fetcher against the local news site, which misbehaves on purpose."""

from __future__ import annotations

import html
import time

import pytest

from factcheck.sources.fetcher import Fetcher, FetchFailed, FetchRefused, LocalHostGate, decode_body
from tests.sources.conftest import FAST_LIMITS
from tests.sources.newsserver import NewsServer


def test_an_article_page_is_fetched_with_its_headers(site: NewsServer, fetcher: Fetcher) -> None:
    result = fetcher.fetch(f"{site.base_url}/news/3")
    assert result.status == 200
    assert result.content_type == "text/html"
    assert html.escape(site.state.stories[3].title) in result.text()
    assert site.state.hits["/robots.txt"] == 1  # read once, then kept
    fetcher.fetch(f"{site.base_url}/news/4")
    assert site.state.hits["/robots.txt"] == 1


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/news/1",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.8/",
        "http://192.168.1.1/",
        "http://[::1]:{port}/news/1",
        "http://0.0.0.0:{port}/",
        "file:///etc/passwd",
        "ftp://example.org/file",
        "gopher://127.0.0.1:6379/_INFO",
        "http://user:secret@localhost:{port}/news/1",
    ],
)
def test_private_addresses_and_other_schemes_are_refused(site: NewsServer, fetcher: Fetcher, url: str) -> None:
    with pytest.raises(FetchRefused):
        fetcher.fetch(url.format(port=site.server_address[1]))
    assert sum(site.state.hits.values()) == 0


def test_a_host_is_refused_unless_allowed_even_when_it_resolves_to_loopback(site: NewsServer) -> None:
    with pytest.raises(FetchRefused, match="not a public address"):
        Fetcher(limits=FAST_LIMITS).fetch(f"{site.base_url}/news/1")


def test_every_address_of_a_host_is_checked() -> None:
    # A name with one public and one private address (DNS rebinding's set-up) is refused.
    fetcher = Fetcher(limits=FAST_LIMITS, resolver=lambda host, port: ["93.184.216.34", "127.0.0.1"])
    with pytest.raises(FetchRefused, match="127.0.0.1"):
        fetcher.fetch("http://rebind.example/")


def test_a_redirect_to_a_private_address_is_refused(site: NewsServer, fetcher: Fetcher) -> None:
    for target in ("http://169.254.169.254/latest/meta-data/", f"{site.loopback_url}/news/1"):
        with pytest.raises(FetchRefused):
            fetcher.fetch(f"{site.base_url}/redirect?to={target}")
    assert site.state.hits["/news/1"] == 0


def test_redirects_are_followed_and_loops_stopped(site: NewsServer, fetcher: Fetcher) -> None:
    result = fetcher.fetch(f"{site.base_url}/redirect?to=/news/2")
    assert result.url == f"{site.base_url}/news/2"
    assert result.redirects == [f"{site.base_url}/redirect?to=/news/2"]
    with pytest.raises(FetchFailed, match="redirect"):
        fetcher.fetch(f"{site.base_url}/loop/a")
    assert site.state.hits["/loop/a"] + site.state.hits["/loop/b"] <= 2 * (FAST_LIMITS.max_redirects + 1)


def test_robots_txt_is_honoured(site: NewsServer, fetcher: Fetcher) -> None:
    with pytest.raises(FetchRefused, match="robots.txt"):
        fetcher.fetch(f"{site.base_url}/private/news/1")
    assert site.state.hits["/private/news/1"] == 0


def test_a_server_error_is_retried_with_backoff_then_reported(site: NewsServer) -> None:
    waits: list[float] = []
    fetcher = Fetcher(limits=FAST_LIMITS, allowed_hosts=frozenset({"localhost"}), sleep=waits.append)
    with pytest.raises(FetchFailed, match="500") as failure:
        fetcher.fetch(f"{site.base_url}/status/500")
    assert failure.value.status == 500
    assert site.state.hits["/status/500"] == 1 + FAST_LIMITS.retries
    assert waits == [FAST_LIMITS.backoff_seconds, FAST_LIMITS.backoff_seconds * 2]
    result = fetcher.fetch(f"{site.base_url}/flaky/5")
    assert result.status == 200 and site.state.hits["/flaky/5"] == 2


def test_a_client_error_is_not_retried(site: NewsServer, fetcher: Fetcher) -> None:
    with pytest.raises(FetchFailed, match="404"):
        fetcher.fetch(f"{site.base_url}/status/404")
    assert site.state.hits["/status/404"] == 1


def test_a_slow_server_times_out_and_is_retried_within_the_deadline(site: NewsServer, fetcher: Fetcher) -> None:
    started = time.monotonic()
    with pytest.raises(FetchFailed, match="in time|stopped sending"):
        fetcher.fetch(f"{site.base_url}/slow")
    assert time.monotonic() - started < FAST_LIMITS.total_seconds + 1
    assert site.state.hits["/slow"] == 1 + FAST_LIMITS.retries


def test_a_2_gb_body_is_refused_before_it_is_read(site: NewsServer, fetcher: Fetcher) -> None:
    started = time.monotonic()
    with pytest.raises(FetchFailed, match="limit") as announced:
        fetcher.fetch(f"{site.base_url}/huge")
    assert announced.value.status == 413
    # Without a Content-Length the count stops it at the cap, never the whole body.
    with pytest.raises(FetchFailed, match="larger than the limit"):
        fetcher.fetch(f"{site.base_url}/huge-chunked")
    assert time.monotonic() - started < 5


def test_a_compressed_bomb_stops_at_the_decompressed_cap(site: NewsServer, fetcher: Fetcher) -> None:
    assert len(site.bomb) < FAST_LIMITS.max_bytes  # small on the wire
    with pytest.raises(FetchFailed, match="decompresses to more than"):
        fetcher.fetch(f"{site.base_url}/bomb")


def test_a_wrong_charset_label_is_corrected(site: NewsServer, fetcher: Fetcher) -> None:
    text = fetcher.fetch(f"{site.base_url}/cp1252/1").text()
    assert "Café crème at €3 “quoted”." in text


def test_decoding_prefers_valid_utf8_then_the_declared_charset() -> None:
    assert decode_body("naïve".encode(), "text/html; charset=iso-8859-1") == "naïve"
    assert decode_body("naïve".encode("latin-1"), "text/html; charset=iso-8859-1") == "naïve"
    assert decode_body(b'<meta charset="koi8-r">' + "Привет".encode("koi8-r")).endswith("Привет")


def test_conditional_get_gets_304(site: NewsServer, fetcher: Fetcher) -> None:
    site.state.feeds["cond"] = [1, 2]
    first = fetcher.fetch(f"{site.base_url}/feeds/cond.rss")
    assert first.etag
    again = fetcher.fetch(f"{site.base_url}/feeds/cond.rss", etag=first.etag)
    assert again.not_modified and again.body == b""
    assert site.state.etag_checks["cond"] == 1


def test_one_request_at_a_time_per_host_with_a_delay() -> None:
    clock = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock[0] += seconds

    gate = LocalHostGate(clock=lambda: clock[0], sleep=sleep)
    with gate.hold("news.example:443", 2.0):
        clock[0] += 0.5  # the request takes half a second
    with gate.hold("news.example:443", 2.0):
        pass
    with gate.hold("other.example:443", 2.0):
        pass
    assert waits == [2.0]
