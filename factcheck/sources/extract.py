"""What a fetched feed or page holds, through field libraries: feedparser for RSS, Atom and
JSON feeds, lxml for sitemaps and section pages, trafilatura (with htmldate) for an article's
text and metadata, and the page's JSON-LD for its dates and ClaimReviews. Pure: no database.
"""

from __future__ import annotations

import calendar
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

import feedparser
from lxml import etree, html

from factcheck.articles.htmltext import HtmlRefused, html_to_document, is_type, json_ld_nodes, parse_html
from factcheck.articles.rows import RowError, parse_published_at

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
NEWS_NS = "{http://www.google.com/schemas/sitemap-news/0.9}"
MAX_SITEMAP_BYTES = 50 * 1024 * 1024
class ExtractError(ValueError):
    """The feed or page holds nothing we can use; the reason is shown on the source page."""


@dataclass(frozen=True)
class FeedItem:
    url: str
    title: str = ""
    author: str = ""
    published_at: datetime | None = None


@dataclass(frozen=True)
class PageArticle:
    text: str
    title: str
    author: str
    canonical_url: str
    published_at: datetime | None
    site_name: str


def _struct_time(value: Any) -> datetime | None:
    if not value:
        return None
    return datetime.fromtimestamp(calendar.timegm(value), tz=UTC)


def _date(raw: object) -> datetime | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return parse_published_at(raw.strip())
    except RowError:
        try:
            parsed = datetime.strptime(raw.strip(), "%Y-%m-%dT%H:%M:%S%z")
        except ValueError:
            return None
        return parsed.astimezone(UTC)


def _xml_root(body: bytes) -> etree._Element:
    if body[:2] == b"\x1f\x8b":  # a .xml.gz served as a file, not as a Content-Encoding
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        body = decompressor.decompress(body, MAX_SITEMAP_BYTES)
        if decompressor.unconsumed_tail:
            raise ExtractError(f"The sitemap decompresses to more than {MAX_SITEMAP_BYTES:,} bytes.")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=False)
    try:
        return etree.fromstring(body, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise ExtractError(f"Not a readable XML sitemap: {exc}") from None


def looks_like_sitemap(body: bytes) -> bool:
    head = body[:2048]
    return head[:2] == b"\x1f\x8b" or b"<urlset" in head or b"<sitemapindex" in head


def sitemap_items(body: bytes, *, base_url: str) -> list[FeedItem]:
    """A (news) sitemap's pages, with the news title and publication date where given."""
    root = _xml_root(body)
    if root.tag == f"{SITEMAP_NS}sitemapindex":
        raise ExtractError("This is a sitemap index: add the news sitemap it lists as the source instead.")
    if root.tag != f"{SITEMAP_NS}urlset":
        raise ExtractError(f"Not a sitemap (root element {root.tag!r}).")
    items = []
    for entry in root.iter(f"{SITEMAP_NS}url"):
        loc = (entry.findtext(f"{SITEMAP_NS}loc") or "").strip()
        if not loc:
            continue
        news = entry.find(f"{NEWS_NS}news")
        title = (news.findtext(f"{NEWS_NS}title") or "").strip() if news is not None else ""
        published = _date(news.findtext(f"{NEWS_NS}publication_date")) if news is not None else None
        items.append(FeedItem(url=urljoin(base_url, loc), title=title, published_at=published or _date(entry.findtext(f"{SITEMAP_NS}lastmod"))))
    return items


def feed_items(body: bytes, *, base_url: str) -> list[FeedItem]:
    """An RSS, Atom or JSON feed's items (feedparser)."""
    if looks_like_sitemap(body):
        return sitemap_items(body, base_url=base_url)
    parsed = feedparser.parse(body)
    if not parsed.entries and (parsed.bozo or not parsed.version):
        reason = getattr(parsed, "bozo_exception", None)
        raise ExtractError(f"Not a feed we can read{f': {reason}' if reason else ''}.")
    items = []
    for entry in parsed.entries:
        link = entry.get("link") or ""
        if not link:
            continue
        published = _struct_time(entry.get("published_parsed")) or _struct_time(entry.get("updated_parsed"))
        title = " ".join(str(entry.get("title") or "").split())
        author = " ".join(str(entry.get("author") or "").split())
        items.append(FeedItem(url=urljoin(base_url, link), title=title, author=author, published_at=published))
    return items


def section_links(text: str, *, base_url: str) -> list[FeedItem]:
    """Article links on a section page: same site, a path that names a story (two segments
    or more, or a long slug), in page order, each once."""
    try:
        document = html.document_fromstring(text)
    except (etree.ParserError, ValueError):
        raise ExtractError("The section page is empty.") from None
    base_host = (urlsplit(base_url).hostname or "").removeprefix("www.")
    seen: set[str] = set()
    items = []
    for anchor in document.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href or href.startswith(("#", "mailto:", "javascript:")):
            continue
        url = urljoin(base_url, href).split("#", 1)[0]
        parts = urlsplit(url)
        if parts.scheme not in {"http", "https"} or (parts.hostname or "").removeprefix("www.") != base_host:
            continue
        segments = [segment for segment in parts.path.split("/") if segment]
        if not (len(segments) >= 2 or (segments and len(segments[-1]) >= 25)) or url in seen:
            continue
        seen.add(url)
        items.append(FeedItem(url=url, title=" ".join(anchor.text_content().split())[:500]))
    return items


def claim_reviews(text: str) -> list[dict[str, Any]]:
    """The ClaimReview nodes of a page's JSON-LD, as the library importer reads them."""
    document = parse_html(text)
    if document is None:
        return []
    return [dict(node) for node in json_ld_nodes(document) if is_type(node, "ClaimReview")]


def page_article(text: str, *, url: str) -> PageArticle:
    """The article text and metadata of a page: the upload path's extraction and limits
    (articles.htmltext: trafilatura; the date the page states, else htmldate's)."""
    try:
        document = html_to_document(text, url=url)
    except HtmlRefused as exc:
        raise ExtractError(str(exc)) from None
    if not document.text:
        raise ExtractError("No article text found on the page.")
    return PageArticle(
        text=document.text,
        title=document.title,
        author=document.author,
        canonical_url=document.url,
        published_at=_date(document.published_at),
        site_name=document.site_name,
    )
