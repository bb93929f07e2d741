"""A local news site for the sources tests and the benchmark: feeds and article pages built
from the BBC corpus (or the seeds when the corpus is absent), real pages from
shared/data/web_pages, and routes that misbehave on purpose. 127.0.0.1 only.

Routes (the article number n indexes the corpus):
  /robots.txt                 disallows /private/
  /feeds/<name>.rss           an RSS feed of the articles the test put under <name>
  /feeds/repeat.rss           the same three old items on every request
  /news/<n>                   article n (canonical link to itself, its date in a meta tag)
  /amp/news/<n>               the same article as an AMP page (canonical: /news/<n>)
  /partner/<n>                a syndicated copy, other chrome, no canonical link
  /private/news/<n>           robots.txt forbids it
  /slow                       answers after `slow_seconds`
  /status/<code>              always that status
  /flaky/<n>                  500 on the first request, then article n
  /loop/a, /loop/b            redirect to each other
  /redirect?to=<url>          302 to any address
  /huge                       announces and streams 2 GB of zeros (never all sent)
  /huge-chunked               2 GB of zeros without a Content-Length
  /bomb                       gzip bomb: about 250 KB on the wire, 256 MB of zeros inflated
  /cp1252/<n>                 article n in windows-1252 while the header says UTF-8
  /real/<file>                a real page from shared/data/web_pages/pages
  /claimreviews.json          a ClaimReview feed (JSON-LD array)
  /factchecks.rss             a feed of fact-check pages, /factcheck/<n>, with ClaimReview JSON-LD
"""

from __future__ import annotations

import gzip
import hashlib
import html
import io
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parents[2]
# ../shared/data beside the checkout; FACTCHECK_SHARED_DATA names it for a checkout elsewhere
# (a git worktree).
SHARED_DATA = Path(os.environ.get("FACTCHECK_SHARED_DATA") or ROOT.parent / "shared" / "data")
BBC = SHARED_DATA / "bbc_news" / "bbc_news.jsonl"
REAL_PAGES = SHARED_DATA / "web_pages" / "pages"
FIRST_DATE = datetime(2005, 3, 1, 9, 30, tzinfo=UTC)
HUGE_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class Story:
    title: str
    text: str
    category: str


def load_stories(limit: int | None = None) -> list[Story]:
    """The BBC corpus, its exact duplicates left out; the three seeds when it is absent."""
    stories: list[Story] = []
    seen: set[str] = set()
    if BBC.is_file():
        with open(BBC, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                digest = hashlib.sha256(row["text"].encode()).hexdigest()
                if digest in seen:
                    continue
                seen.add(digest)
                stories.append(Story(title=row["title"], text=row["text"], category=row["category"]))
                if limit is not None and len(stories) >= limit:
                    break
        return stories
    import csv

    with open(ROOT / "seeds" / "articles.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            text = (ROOT / "seeds" / row["file"]).read_text(encoding="utf-8") if row.get("file") else row.get("text", "")
            stories.append(Story(title=row.get("title", ""), text=text, category="seed"))
    return stories


def published(n: int) -> datetime:
    return FIRST_DATE + timedelta(hours=n)


def article_html(story: Story, n: int, *, base: str, canonical: str | None, chrome: str = "BBC-like News") -> str:
    paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in story.text.split("\n") if p.strip())
    link = f'<link rel="canonical" href="{html.escape(canonical)}">' if canonical else ""
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>{html.escape(story.title)} | {chrome}</title>{link}"
        f'<meta property="og:title" content="{html.escape(story.title)}">'
        f'<meta name="author" content="Reporter {n % 7}">'
        f'<meta property="article:published_time" content="{published(n).isoformat()}">'
        f"</head><body><header><nav><a href='{base}/'>Home</a> <a href='{base}/news/{n + 1}'>Next story</a></nav></header>"
        f"<main><article><h1>{html.escape(story.title)}</h1>{paragraphs}</article></main>"
        "<aside>Most read: nothing to see here. Subscribe to our newsletter.</aside>"
        "<footer>Copyright. Cookie settings.</footer></body></html>"
    )


def rss(items: list[tuple[str, str, datetime]], *, title: str) -> str:
    entries = "".join(
        f"<item><title>{html.escape(item_title)}</title><link>{html.escape(link)}</link>"
        f"<guid>{html.escape(link)}</guid><pubDate>{format_datetime(when)}</pubDate></item>"
        for item_title, link, when in items
    )
    return f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>{html.escape(title)}</title><link>http://example.org/</link><description>t</description>{entries}</channel></rss>'


def claim_review(n: int, *, base: str) -> dict[str, object]:
    return {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "url": f"{base}/factcheck/{n}",
        "claimReviewed": f"Claim number {n} about the economy grew by {n}% last year",
        "author": {"@type": "Organization", "name": "Test Checkers"},
        "datePublished": f"2024-05-0{1 + n % 9}",
        "reviewRating": {"@type": "Rating", "ratingValue": 1, "bestRating": 5, "worstRating": 1, "alternateName": "False"},
        "itemReviewed": {"@type": "Claim", "author": {"@type": "Person", "name": "A Politician"}},
    }


@dataclass
class SiteState:
    stories: Sequence[Story]
    # A feed's items: article numbers (links to /news/<n> with tracking parameters) or paths.
    feeds: dict[str, list[int | str]] = field(default_factory=dict)
    hits: Counter[str] = field(default_factory=Counter)
    slow_seconds: float = 3.0
    etag_checks: Counter[str] = field(default_factory=Counter)


class NewsHandler(BaseHTTPRequestHandler):
    server: NewsServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - BaseHTTPRequestHandler's name
        pass

    @property
    def base(self) -> str:
        return self.server.base_url

    def _send(self, status: int, body: bytes, *, content_type: str = "text/html; charset=utf-8", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str, status: int = 302) -> None:
        self._send(status, b"", headers={"Location": location})

    def _article(self, n: int, *, canonical: str | None, chrome: str = "BBC-like News") -> None:
        state = self.server.state
        if not 0 <= n < len(state.stories):
            self._send(404, b"not found")
            return
        self._send(200, article_html(state.stories[n], n, base=self.base, canonical=canonical, chrome=chrome).encode("utf-8"))

    def _stream_zeros(self, *, announce: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if announce:
            self.send_header("Content-Length", str(HUGE_BYTES))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        block = b"\0" * 65536
        sent = 0
        try:
            while sent < HUGE_BYTES:
                self.wfile.write(block)
                sent += len(block)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def do_GET(self) -> None:  # noqa: C901, N802 - one route table, BaseHTTPRequestHandler's name
        state = self.server.state
        parts = urlsplit(self.path)
        path = parts.path
        state.hits[path] += 1
        segments = [segment for segment in path.split("/") if segment]
        if path == "/robots.txt":
            self._send(200, b"User-agent: *\nDisallow: /private/\n", content_type="text/plain")
        elif path == "/feeds/repeat.rss":
            repeated = [(state.stories[n].title, f"{self.base}/news/{n}", published(n)) for n in range(3)]
            self._send(200, rss(repeated, title="Repeats").encode(), content_type="application/rss+xml")
        elif len(segments) == 2 and segments[0] == "feeds" and segments[1].endswith(".rss"):
            name = segments[1].removesuffix(".rss")
            numbers = state.feeds.get(name, [])
            items = [
                (state.stories[n].title, f"{self.base}/news/{n}?utm_source=rss&utm_medium=feed", published(n))
                if isinstance(n, int)
                else ("", f"{self.base}{n}", FIRST_DATE)
                for n in numbers
            ]
            body = rss(items, title=name).encode()
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            if self.headers.get("If-None-Match") == etag:
                state.etag_checks[name] += 1
                self._send(304, b"", headers={"ETag": etag})
            else:
                self._send(200, body, content_type="application/rss+xml", headers={"ETag": etag})
        elif len(segments) == 2 and segments[0] == "news" and segments[1].isdigit():
            self._article(int(segments[1]), canonical=f"{self.base}/news/{segments[1]}")
        elif len(segments) == 3 and segments[:2] == ["amp", "news"] and segments[2].isdigit():
            self._article(int(segments[2]), canonical=f"{self.base}/news/{segments[2]}", chrome="AMP")
        elif len(segments) == 2 and segments[0] == "partner" and segments[1].isdigit():
            self._article(int(segments[1]), canonical=None, chrome="Partner Daily")
        elif len(segments) == 3 and segments[:2] == ["private", "news"]:
            self._article(int(segments[2]), canonical=None)
        elif path == "/slow":
            time.sleep(state.slow_seconds)
            self._article(0, canonical=None)
        elif len(segments) == 2 and segments[0] == "status":
            self._send(int(segments[1]), b"error page")
        elif len(segments) == 2 and segments[0] == "flaky":
            if state.hits[path] == 1:
                self._send(503, b"try again", headers={"Retry-After": "0"})
            else:
                self._article(int(segments[1]), canonical=f"{self.base}/news/{segments[1]}")
        elif path == "/loop/a":
            self._redirect(f"{self.base}/loop/b")
        elif path == "/loop/b":
            self._redirect("/loop/a")
        elif path == "/redirect":
            self._redirect(parse_qs(parts.query).get("to", ["/"])[0])
        elif path == "/huge":
            self._stream_zeros(announce=True)
        elif path == "/huge-chunked":
            self._stream_zeros(announce=False)
        elif path == "/bomb":
            self._send(200, self.server.bomb, headers={"Content-Encoding": "gzip"})
        elif len(segments) == 2 and segments[0] == "cp1252":
            n = int(segments[1])
            page = article_html(state.stories[n], n, base=self.base, canonical=None).replace("<meta charset=utf-8>", "")
            self._send(200, page.replace("</h1>", "</h1><p>Café crème at €3 “quoted”.</p>").encode("cp1252", errors="replace"))
        elif len(segments) == 2 and segments[0] == "real" and (REAL_PAGES / segments[1]).is_file():
            self._send(200, (REAL_PAGES / segments[1]).read_bytes())
        elif path == "/claimreviews.json":
            body = json.dumps([claim_review(n, base=self.base) for n in range(4)] + [{"@type": "ClaimReview", "url": "not a url"}]).encode()
            self._send(200, body, content_type="application/ld+json")
        elif path == "/factchecks.rss":
            checks = [(f"Fact-check {n}", f"{self.base}/factcheck/{n}", published(n)) for n in range(10, 13)]
            self._send(200, rss(checks, title="Checks").encode(), content_type="application/rss+xml")
        elif len(segments) == 2 and segments[0] == "factcheck" and segments[1].isdigit():
            n = int(segments[1])
            ld = json.dumps({"@context": "https://schema.org", "@graph": [{"@type": "WebPage"}, claim_review(n, base=self.base)]})
            self._send(200, f'<html><head><script type="application/ld+json">{ld}</script></head><body><p>Check {n}</p></body></html>'.encode())
        else:
            self._send(404, b"not found")


class NewsServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up on purpose (timeouts, size caps) is no error of the server."""

    def __init__(self, state: SiteState) -> None:
        super().__init__(("127.0.0.1", 0), NewsHandler)
        self.state = state
        self.host_name = "localhost"
        self.base_url = f"http://{self.host_name}:{self.server_address[1]}"
        self.loopback_url = f"http://127.0.0.1:{self.server_address[1]}"
        buffer = io.BytesIO()
        with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as packed:
            zeros = b"\0" * (1024 * 1024)
            for _ in range(256):
                packed.write(zeros)
        self.bomb = buffer.getvalue()


def serve(state: SiteState) -> Iterator[NewsServer]:
    server = NewsServer(state)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
