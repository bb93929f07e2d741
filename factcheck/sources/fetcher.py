"""A polite, safe HTTP fetcher for feeds, pages and pasted links. No Django here.

A pasted link comes from a user, so every address is checked before it is reached: only
http(s), and the host's every address must be public (no loopback, private ranges, link-local
such as the metadata address 169.254.169.254) unless an admin allowed the host by name. The
connection goes to the address that was checked (a DNS answer that changes between the check
and the connection cannot send us elsewhere), and every redirect is checked again.

Politeness: robots.txt is read (protego) and honoured, with its crawl-delay; one request at
a time per host with a delay between them (the HostGate); conditional GET (ETag,
Last-Modified). Limits: connect/read timeouts and a deadline for the whole fetch, a redirect
limit, a size cap checked on Content-Length before the body is read and again while it is
read, and a cap on the decompressed size (a gzip bomb stops at the cap, never inflates).
Retries with exponential backoff on 5xx, 429 and timeouts.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Protocol
from urllib.parse import urljoin, urlsplit

import charset_normalizer
import urllib3
from protego import Protego
from urllib3.exceptions import HTTPError as Urllib3Error
from urllib3.exceptions import TimeoutError as Urllib3Timeout

RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
READ_BLOCK = 64 * 1024
ROBOTS_MAX_BYTES = 512 * 1024
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_CONTENT_TYPE_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.IGNORECASE)


class FetchRefused(Exception):
    """Not fetched, by rule: a scheme other than http(s), a private address, robots.txt."""


class FetchFailed(Exception):
    """Fetched and failed: an error status, a timeout, a body over the limits."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class FetchLimits:
    user_agent: str = "FactcheckBot/1.0"
    connect_timeout: float = 5.0
    read_timeout: float = 15.0
    total_seconds: float = 60.0
    max_redirects: int = 5
    max_bytes: int = 10 * 1024 * 1024
    max_decoded_bytes: int = 20 * 1024 * 1024
    retries: int = 2
    backoff_seconds: float = 1.0
    host_delay_seconds: float = 1.0
    max_crawl_delay_seconds: float = 30.0
    robots_ttl_seconds: float = 3600.0


@dataclass
class FetchResult:
    url: str
    status: int
    headers: dict[str, str]
    body: bytes = b""
    redirects: list[str] = field(default_factory=list)

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def etag(self) -> str:
        return self.headers.get("etag", "")

    @property
    def last_modified(self) -> str:
        return self.headers.get("last-modified", "")

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";", 1)[0].strip().lower()

    def text(self) -> str:
        return decode_body(self.body, self.headers.get("content-type", ""))


def decode_body(body: bytes, content_type: str = "") -> str:
    """The body as text. Servers often declare a charset the bytes are not in: valid UTF-8
    is taken as UTF-8 whatever the label (other encodings' non-ASCII text is almost never
    valid UTF-8), then the declared charset (header, then <meta>) if the bytes decode in it,
    then charset detection."""
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    declared = [match.group(1) for match in [_CONTENT_TYPE_CHARSET.search(content_type)] if match]
    declared += [match.group(1).decode("ascii") for match in [_META_CHARSET.search(body[:4096])] if match]
    for charset in declared:
        if charset.lower().replace("_", "-") in {"utf-8", "utf8"}:
            continue  # already tried: the label is wrong
        try:
            return body.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
    matches = charset_normalizer.from_bytes(body)
    best = matches.best()
    if best is None:
        return body.decode("utf-8", errors="replace")
    # Single-byte code pages often tie (cp1250 and cp1252 share most letters): on a tie the
    # web's default legacy encoding, windows-1252, wins (as browsers decide, per WHATWG).
    for match in matches:
        if match.encoding == "cp1252" and (match.chaos, match.coherence) == (best.chaos, best.coherence):
            return str(match)
    return str(best)


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


Resolver = Callable[[str, int], list[str]]


def resolve(host: str, port: int) -> list[str]:
    """Every address the host name resolves to."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


class HostGate(Protocol):
    """Holds a host for one request: one at a time, `delay` seconds after the previous one ended."""

    def hold(self, host: str, delay: float) -> AbstractContextManager[None]: ...


class LocalHostGate:
    """One request at a time per host in this process, `delay` seconds apart."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._next: dict[str, float] = {}
        self._guard = threading.Lock()
        self._clock, self._sleep = clock, sleep

    @contextmanager
    def hold(self, host: str, delay: float) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(host, threading.Lock())
        with lock:
            wait = self._next.get(host, 0.0) - self._clock()
            if wait > 0:
                self._sleep(wait)
            try:
                yield
            finally:
                self._next[host] = self._clock() + delay


@dataclass
class _Robots:
    rules: Protego | None  # None: everything allowed (no robots.txt)
    disallow_all: bool
    expires: float


class Fetcher:
    def __init__(
        self,
        *,
        limits: FetchLimits | None = None,
        allowed_hosts: frozenset[str] = frozenset(),
        gate: HostGate | None = None,
        resolver: Resolver = resolve,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits or FetchLimits()
        self.allowed_hosts = frozenset(host.lower() for host in allowed_hosts)
        self.gate: HostGate = gate or LocalHostGate(clock=clock, sleep=sleep)
        self._resolve, self._sleep, self._clock = resolver, sleep, clock
        self._robots: dict[str, _Robots] = {}

    # --- Addresses -----------------------------------------------------------------------
    def check_url(self, url: str) -> tuple[str, str, int, str]:
        """(scheme, host, port, address to connect to) of an address we may fetch; FetchRefused otherwise."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise FetchRefused(f"Not a valid address: {url[:200]!r}.") from None
        scheme = parts.scheme.lower()
        if scheme not in {"http", "https"}:
            raise FetchRefused(f"Only http and https addresses are fetched, not {scheme or 'this'}: {url[:200]!r}.")
        host = (parts.hostname or "").rstrip(".").lower()
        if not host:
            raise FetchRefused(f"The address names no host: {url[:200]!r}.")
        if parts.username or parts.password:
            raise FetchRefused("Addresses with a user name or password are not fetched.")
        port = port or (443 if scheme == "https" else 80)
        try:
            addresses = self._resolve(host, port)
        except (OSError, UnicodeError) as exc:
            raise FetchFailed(f"{host} does not resolve ({exc}).") from None
        if not addresses:
            raise FetchFailed(f"{host} does not resolve.")
        if host not in self.allowed_hosts:
            private = [address for address in addresses if not _is_public(address)]
            if private:
                raise FetchRefused(
                    f"{host} is not a public address ({', '.join(private[:3])}): only public hosts are fetched, "
                    "unless an admin allows the host."
                )
        return scheme, host, port, addresses[0]

    # --- robots.txt ----------------------------------------------------------------------
    def _robots_for(self, scheme: str, netloc: str) -> _Robots:
        origin = f"{scheme}://{netloc}"
        now = self._clock()
        cached = self._robots.get(origin)
        if cached is not None and cached.expires > now:
            return cached
        expires = now + self.limits.robots_ttl_seconds
        try:
            result = self._fetch(f"{origin}/robots.txt", headers={}, max_bytes=ROBOTS_MAX_BYTES, robots=False)
        except FetchFailed as exc:
            # RFC 9309: a robots.txt that is not there (4xx) allows everything; a server error
            # or no answer means the site may not want visitors now: nothing is fetched.
            unavailable = exc.status is None or exc.status >= 500
            robots = _Robots(rules=None, disallow_all=unavailable, expires=expires if not unavailable else now + 60)
        else:
            robots = _Robots(rules=Protego.parse(result.text()) if result.status == 200 else None, disallow_all=False, expires=expires)
        self._robots[origin] = robots
        return robots

    def robots_allow(self, url: str) -> tuple[bool, float]:
        """Whether robots.txt lets us fetch `url`, and the delay it asks between requests."""
        parts = urlsplit(url)
        robots = self._robots_for(parts.scheme.lower(), parts.netloc.lower())
        if robots.disallow_all:
            return False, self.limits.host_delay_seconds
        if robots.rules is None:
            return True, self.limits.host_delay_seconds
        delay = robots.rules.crawl_delay(self.limits.user_agent) or 0.0
        delay = min(max(float(delay), self.limits.host_delay_seconds), self.limits.max_crawl_delay_seconds)
        return bool(robots.rules.can_fetch(url, self.limits.user_agent)), delay

    # --- Fetching ------------------------------------------------------------------------
    def fetch(self, url: str, *, etag: str = "", last_modified: str = "", accept: str = "*/*") -> FetchResult:
        """GET `url` within the limits and the rules: FetchRefused or FetchFailed otherwise.
        With `etag`/`last_modified` an unchanged resource comes back as a 304 (no body)."""
        headers = {"Accept": accept}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        return self._fetch(url, headers=headers, max_bytes=self.limits.max_bytes, robots=True)

    def _fetch(self, url: str, *, headers: dict[str, str], max_bytes: int, robots: bool) -> FetchResult:
        deadline = self._clock() + self.limits.total_seconds
        redirects: list[str] = []
        current = url
        while True:
            result = self._fetch_one(current, headers=headers, max_bytes=max_bytes, robots=robots, deadline=deadline)
            if result.status not in REDIRECT_STATUSES:
                result.redirects = redirects
                if result.status >= 400:
                    raise FetchFailed(f"{current[:200]} answered {result.status}.", status=result.status)
                return result
            location = result.headers.get("location", "")
            if not location:
                raise FetchFailed(f"{current[:200]} redirects ({result.status}) to nowhere.", status=result.status)
            redirects.append(current)
            if len(redirects) > self.limits.max_redirects:
                raise FetchFailed(f"More than {self.limits.max_redirects} redirects from {url[:200]}.", status=result.status)
            current = urljoin(current, location)
            if current in redirects:
                raise FetchFailed(f"A redirect loop from {url[:200]} back to {current[:200]}.", status=result.status)

    def _fetch_one(self, url: str, *, headers: dict[str, str], max_bytes: int, robots: bool, deadline: float) -> FetchResult:
        scheme, host, port, _ = self.check_url(url)  # refused addresses fail fast, before robots
        delay = self.limits.host_delay_seconds
        if robots:
            allowed, delay = self.robots_allow(url)
            if not allowed:
                raise FetchRefused(f"robots.txt of {host} does not allow fetching {url[:200]}.")
        attempt = 0
        while True:
            try:
                with self.gate.hold(f"{host}:{port}", delay):
                    # Checked again inside the gate: the address connected to is the one checked now.
                    scheme, host, port, address = self.check_url(url)
                    result = self._request(url, scheme=scheme, host=host, port=port, address=address, headers=headers, max_bytes=max_bytes, deadline=deadline)
            except FetchFailed as exc:
                if not self._retry(attempt, deadline, exc.status, retry_after=None):
                    raise
                attempt += 1
                continue
            if result.status in RETRIED_STATUSES and self._retry(attempt, deadline, result.status, result.headers.get("retry-after")):
                attempt += 1
                continue
            return result

    def _retry(self, attempt: int, deadline: float, status: int | None, retry_after: str | None) -> bool:
        """Whether to try again (and wait the backoff first): timeouts, connection errors, 5xx, 429."""
        if attempt >= self.limits.retries:
            return False
        if status is None or (status not in RETRIED_STATUSES and status != 0):
            return False
        wait = self.limits.backoff_seconds * 2**attempt
        if retry_after:
            wait = max(wait, _retry_after_seconds(retry_after))
        if self._clock() + wait >= deadline:
            return False
        self._sleep(wait)
        return True

    def _request(
        self, url: str, *, scheme: str, host: str, port: int, address: str, headers: dict[str, str], max_bytes: int, deadline: float
    ) -> FetchResult:
        parts = urlsplit(url)
        remaining = deadline - self._clock()
        if remaining <= 0:
            raise FetchFailed(f"Gave up on {url[:200]} after {self.limits.total_seconds:g} s.", status=0)
        timeout = urllib3.Timeout(connect=min(self.limits.connect_timeout, remaining), read=min(self.limits.read_timeout, remaining))
        pool: urllib3.HTTPConnectionPool
        if scheme == "https":
            pool = urllib3.HTTPSConnectionPool(
                address, port, timeout=timeout, retries=False, server_hostname=host, assert_hostname=host, cert_reqs="CERT_REQUIRED"
            )
        else:
            pool = urllib3.HTTPConnectionPool(address, port, timeout=timeout, retries=False)
        default_port = port == (443 if scheme == "https" else 80)
        request_headers = {
            "Host": host if default_port else f"{host}:{port}",
            "User-Agent": self.limits.user_agent,
            # Only encodings whose decompressed size we can bound as we go.
            "Accept-Encoding": "gzip, deflate",
            **headers,
        }
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            response = pool.urlopen(
                "GET", path, headers=request_headers, redirect=False, retries=False, preload_content=False,
                decode_content=False, assert_same_host=False,
            )
        except Urllib3Timeout:
            pool.close()
            raise FetchFailed(f"{host} did not answer in time.", status=0) from None
        except (Urllib3Error, OSError) as exc:
            pool.close()
            raise FetchFailed(f"Could not reach {host}: {exc}", status=0) from None
        try:
            response_headers = {name.lower(): value for name, value in response.headers.items()}
            status = response.status
            if status in REDIRECT_STATUSES or status == 304 or status >= 400:
                return FetchResult(url=url, status=status, headers=response_headers)
            body = self._read_body(response, url=url, headers=response_headers, max_bytes=max_bytes, deadline=deadline)
            return FetchResult(url=url, status=status, headers=response_headers, body=body)
        finally:
            response.release_conn()
            response.close()
            pool.close()

    def _read_body(self, response: urllib3.BaseHTTPResponse, *, url: str, headers: dict[str, str], max_bytes: int, deadline: float) -> bytes:
        declared = headers.get("content-length", "").strip()
        if declared.isdigit() and int(declared) > max_bytes:
            raise FetchFailed(f"{url[:200]} is {int(declared):,} bytes; the limit is {max_bytes:,}.", status=413)
        encoding = headers.get("content-encoding", "").strip().lower()
        if encoding in {"", "identity"}:
            decompressor = None
        elif encoding in {"gzip", "x-gzip"}:
            decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            decompressor = zlib.decompressobj()
        else:
            raise FetchFailed(f"{url[:200]} came in an encoding we did not ask for ({encoding}).", status=415)
        max_decoded = self.limits.max_decoded_bytes
        received = 0
        parts: list[bytes] = []
        decoded = 0
        try:
            while True:
                block = response.read(READ_BLOCK, decode_content=False)
                if not block:
                    break
                received += len(block)
                if received > max_bytes:
                    raise FetchFailed(f"{url[:200]} is larger than the limit of {max_bytes:,} bytes.", status=413)
                if decompressor is not None:
                    block = decompressor.decompress(block, max_decoded - decoded + 1)
                    if decompressor.unconsumed_tail:
                        block += b"x"  # more output waits: over the limit for sure
                decoded += len(block)
                if decoded > max_decoded:
                    raise FetchFailed(f"{url[:200]} decompresses to more than {max_decoded:,} bytes.", status=413)
                parts.append(block)
                if self._clock() > deadline:
                    raise FetchFailed(f"{url[:200]} took longer than {self.limits.total_seconds:g} s to read.", status=0)
        except Urllib3Timeout:
            raise FetchFailed(f"{url[:200]} stopped sending.", status=0) from None
        except (Urllib3Error, OSError) as exc:
            raise FetchFailed(f"Reading {url[:200]} failed: {exc}", status=0) from None
        except zlib.error as exc:
            raise FetchFailed(f"{url[:200]} is not valid {encoding}: {exc}", status=0) from None
        return b"".join(parts)


def _retry_after_seconds(value: str) -> float:
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return 0.0
    return max(0.0, when.timestamp() - time.time())
