"""Readable article text out of an HTML page, with libxml2's HTML parser (lxml).

Readability in miniature: drop what is never article text (scripts, styles, navigation,
forms, asides), prefer the <article> element, then <main>, then the whole body, and keep
block structure as paragraphs. Metadata comes from the usual <meta>/<link> tags.

libxml2 tokenises and balances the tags (implied and stray end tags included) and hands
us start/end/data events without building a tree; every event costs O(1) here (counters,
not scans of the open elements), so time grows linearly with the page. A page nested
deeper than MAX_DEPTH elements, or one that takes longer than the time limit, is refused
with HtmlRefused: no real article needs either, and a hostile upload cannot hold a worker.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field

from lxml import etree

# Never article text, wherever they appear.
SKIPPED = frozenset({
    "script", "style", "noscript", "template", "svg", "math", "nav", "aside", "form", "iframe", "object",
    "button", "select", "textarea", "canvas", "dialog", "head",
})
# Page chrome outside the article; inside <article> a <header> holds the headline and byline.
CHROME = frozenset({"header", "footer"})
BLOCKS = frozenset({
    "p", "div", "section", "article", "main", "blockquote", "pre", "ul", "ol", "li", "dl", "dt", "dd", "table", "tr",
    "h1", "h2", "h3", "h4", "h5", "h6", "figure", "figcaption", "hr", "address", "details", "summary", "body",
})
LINE_BREAKS = frozenset({"br", "hr"})
# Elements whose being open changes where text goes; the only ones counted.
TRACKED = frozenset({"article", "main", "h1"})
SPACES = re.compile(r"[ \t\r\n\f\v\u00a0]+")
META_FIELDS = {
    "og:title": "title", "twitter:title": "title",
    "author": "author", "article:author": "author", "byl": "author",
    "article:published_time": "published_at", "date": "published_at", "pubdate": "published_at", "dc.date": "published_at",
    "og:url": "url",
}
# News pages nest a few dozen elements deep; 40,000 nested <div>s are an attack, not an article.
MAX_DEPTH = 512
DEFAULT_TIME_LIMIT_SECONDS = 5.0
# The clock is read once per this many start tags.
CLOCK_EVERY = 1024


class HtmlRefused(ValueError):
    """The page is too deeply nested or too slow to parse; its reason is shown to the importer."""


@dataclass
class HtmlDocument:
    text: str
    title: str = ""
    url: str = ""
    author: str = ""
    published_at: str = ""


@dataclass
class _Region:
    blocks: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)

    def add(self, data: str) -> None:
        self.current.append(data)

    def flush(self) -> None:
        block = SPACES.sub(" ", "".join(self.current)).strip()
        if block:
            self.blocks.append(block)
        self.current.clear()


class _ArticleTarget:
    """lxml parser target: start/end/data events in, an HtmlDocument out (close())."""

    def __init__(self, *, time_limit: float) -> None:
        self.deadline = time.monotonic() + time_limit
        self.time_limit = time_limit
        self.starts = 0
        self.depth = 0
        # Depth at which a skipped element opened (0: not inside one); its descendants are skipped too.
        self.skip_from = 0
        self.skip_tag = ""
        self.open_tracked: Counter[str] = Counter()
        self.regions = {"article": _Region(), "main": _Region(), "body": _Region()}
        self.meta: dict[str, str] = {}
        self.title_parts: list[str] = []
        self.first_h1: list[str] = []
        self.in_title = False
        self.h1_done = False

    def _active_regions(self) -> list[_Region]:
        active = [self.regions["body"]]
        if self.open_tracked["main"]:
            active.append(self.regions["main"])
        if self.open_tracked["article"]:
            active.append(self.regions["article"])
        return active

    def _flush(self) -> None:
        for region in self._active_regions():
            region.flush()

    def _skips(self, tag: str, attrs: dict[str, str]) -> bool:
        if tag in SKIPPED or "hidden" in attrs or attrs.get("aria-hidden") == "true":
            return True
        return tag in CHROME and not self.open_tracked["article"]

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        self.starts += 1
        if self.starts % CLOCK_EVERY == 0 and time.monotonic() > self.deadline:
            raise HtmlRefused(f"The HTML took longer than {self.time_limit:g} s to read.")
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise HtmlRefused(f"The HTML nests elements more than {MAX_DEPTH} deep.")
        tag = tag.lower() if isinstance(tag, str) else ""  # comments and PIs come as functions
        if tag in TRACKED:
            self.open_tracked[tag] += 1
        # <title> lives in <head>, which is skipped for text but read for the title.
        if tag == "title" and (not self.skip_from or self.skip_tag == "head"):
            self.in_title = True
        if tag == "meta":
            self._meta(attrib)
        elif tag == "link" and (attrib.get("rel") or "").lower() == "canonical" and attrib.get("href"):
            self.meta.setdefault("canonical", attrib["href"])
        if self.skip_from:
            return
        if self._skips(tag, attrib):
            self.skip_from, self.skip_tag = self.depth, tag
        elif tag in BLOCKS or tag in LINE_BREAKS:
            self._flush()

    def end(self, tag: str) -> None:
        tag = tag.lower() if isinstance(tag, str) else ""
        if tag == "title":
            self.in_title = False
        if self.skip_from == self.depth:
            self.skip_from, self.skip_tag = 0, ""
        elif not self.skip_from and tag in BLOCKS:
            self._flush()
            if tag == "h1":
                self.h1_done = self.h1_done or bool(self.first_h1)
        if tag in TRACKED:
            self.open_tracked[tag] -= 1
        self.depth -= 1

    def data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
            return
        if self.skip_from:
            return
        if self.open_tracked["h1"] and not self.h1_done:
            self.first_h1.append(data)
        for region in self._active_regions():
            region.add(data)

    def comment(self, text: str) -> None:
        """Comments are not text (declared so lxml does not pass them as elements)."""

    def _meta(self, attrs: dict[str, str]) -> None:
        key = (attrs.get("property") or attrs.get("name") or "").strip().lower()
        content = (attrs.get("content") or "").strip()
        target = META_FIELDS.get(key)
        if target and content:
            self.meta.setdefault(target, content)

    def close(self) -> HtmlDocument:
        for region in self.regions.values():
            region.flush()
        chosen = next(
            (self.regions[name].blocks for name in ("article", "main") if self.regions[name].blocks),
            self.regions["body"].blocks,
        )
        title = self.meta.get("title") or SPACES.sub(" ", "".join(self.first_h1)).strip() or SPACES.sub(" ", "".join(self.title_parts)).strip()
        return HtmlDocument(
            text="\n\n".join(chosen),
            title=title,
            url=self.meta.get("canonical") or self.meta.get("url", ""),
            author=self.meta.get("author", ""),
            published_at=self.meta.get("published_at", ""),
        )


def html_to_document(html: str, *, time_limit: float = DEFAULT_TIME_LIMIT_SECONDS) -> HtmlDocument:
    """The page's article text and metadata; HtmlRefused for a page nested or slow past the
    limits, or one whose text is not valid Unicode."""
    try:
        html.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates: what a page declared as UTF-7 can decode to; libxml2 reads UTF-8 only.
        raise HtmlRefused("The page's text is not valid Unicode (lone surrogates; declared as UTF-7?).") from None
    target = _ArticleTarget(time_limit=time_limit)
    # no_network: never fetch a DTD; recover: pages in the wild are rarely valid.
    parser = etree.HTMLParser(target=target, recover=True, no_network=True, remove_comments=True, remove_pis=True)
    try:
        parser.feed(html)
        document: HtmlDocument = parser.close()
    except etree.ParserError:  # "Document is empty"; what the target raises comes through as it is
        return HtmlDocument(text="")
    return document


CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def declared_charset(head: bytes) -> str | None:
    """The charset a page declares in its first bytes, if any."""
    match = CHARSET.search(head[:4096])
    return match.group(1).decode("ascii").lower() if match else None
