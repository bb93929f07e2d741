"""Readable article text out of an HTML page, with the standard library's parser.

Readability in miniature: drop what is never article text (scripts, styles, navigation,
forms, asides), prefer the <article> element, then <main>, then the whole body, and keep
block structure as paragraphs. Metadata comes from the usual <meta>/<link> tags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

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
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
SPACES = re.compile(r"[ \t\r\n\f\v\u00a0]+")
META_FIELDS = {
    "og:title": "title", "twitter:title": "title",
    "author": "author", "article:author": "author", "byl": "author",
    "article:published_time": "published_at", "date": "published_at", "pubdate": "published_at", "dc.date": "published_at",
    "og:url": "url",
}


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


class _ArticleParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skip_depth = 0
        self.open_tags: list[str] = []
        self.regions = {"article": _Region(), "main": _Region(), "body": _Region()}
        self.meta: dict[str, str] = {}
        self.title_parts: list[str] = []
        self.first_h1: list[str] = []
        self.in_title = False
        self.h1_done = False

    def _inside(self, tag: str) -> bool:
        return tag in self.open_tags

    def _active_regions(self) -> list[_Region]:
        active = [self.regions["body"]]
        if self._inside("main"):
            active.append(self.regions["main"])
        if self._inside("article"):
            active.append(self.regions["article"])
        return active

    def _skips(self, tag: str, attrs: dict[str, str | None]) -> bool:
        if tag in SKIPPED or "hidden" in attrs or attrs.get("aria-hidden") == "true":
            return True
        return tag in CHROME and not self._inside("article")

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = dict(attrs_list)
        if tag == "title" and not self.skip_depth_outside_head():
            self.in_title = True
        if tag == "meta":
            self._meta(attrs)
        elif tag == "link" and (attrs.get("rel") or "").lower() == "canonical" and attrs.get("href"):
            self.meta.setdefault("canonical", attrs["href"] or "")
        if tag in VOID:
            if tag in {"br", "hr"} and not self.skip_depth:
                for region in self._active_regions():
                    region.flush()
            return
        if self.skip_depth or self._skips(tag, attrs):
            self.skip_depth += 1
            self.open_tags.append(tag)
            return
        if tag in BLOCKS:
            for region in self._active_regions():
                region.flush()
        self.open_tags.append(tag)

    def skip_depth_outside_head(self) -> int:
        # <title> lives in <head>, which is skipped for text but read for the title.
        return self.skip_depth - (1 if self._inside("head") else 0)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag not in self.open_tags:
            return  # a stray end tag: HTML in the wild has plenty
        # Close everything opened after the matching start tag (unclosed <p>, <li> ...).
        while self.open_tags:
            closed = self.open_tags.pop()
            if self.skip_depth:
                self.skip_depth -= 1
            elif closed in BLOCKS:
                for region in self._active_regions():
                    region.flush()
                if closed == "h1":
                    self.h1_done = self.h1_done or bool(self.first_h1)
            if closed == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
            return
        if self.skip_depth:
            return
        if self._inside("h1") and not self.h1_done:
            self.first_h1.append(data)
        for region in self._active_regions():
            region.add(data)

    def _meta(self, attrs: dict[str, str | None]) -> None:
        key = (attrs.get("property") or attrs.get("name") or "").strip().lower()
        content = (attrs.get("content") or "").strip()
        target = META_FIELDS.get(key)
        if target and content:
            self.meta.setdefault(target, content)

    def document(self) -> HtmlDocument:
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


def html_to_document(html: str) -> HtmlDocument:
    parser = _ArticleParser()
    parser.feed(html)
    parser.close()
    return parser.document()


CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def declared_charset(head: bytes) -> str | None:
    """The charset a page declares in its first bytes, if any."""
    match = CHARSET.search(head[:4096])
    return match.group(1).decode("ascii").lower() if match else None
