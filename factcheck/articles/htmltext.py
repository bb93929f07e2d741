"""Article text and metadata out of an HTML page, by trafilatura (with htmldate for the date),
behind the hostile-input limits. Uploaded HTML files (articles.readers) and fetched pages
(sources.extract) both come through here.

Before trafilatura builds its tree, libxml2's streaming parser reads the page once into
counters, without building a tree (O(1) per event, so linear time): a page nested deeper than
MAX_DEPTH elements, one of more than MAX_ELEMENTS elements, or one whose reading takes longer
than the time limit is refused with HtmlRefused. No real article needs any of these, and a
hostile upload or page cannot hold a worker: trafilatura's own time grows with the elements
(about 16 s for 150,000 paragraphs here) and its tree-size guard acts only after parsing.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import trafilatura
from lxml import etree
from lxml import html as lxml_html
from trafilatura.settings import use_config

# News pages nest a few dozen elements deep; 40,000 nested <div>s are an attack, not an article.
MAX_DEPTH = 512
# News pages hold a few thousand elements (the real pages in shared/data/web_pages: at most 2,061 tags).
MAX_ELEMENTS = 50_000
DEFAULT_TIME_LIMIT_SECONDS = 5.0
# The clock is read once per this many start tags.
CLOCK_EVERY = 1024
ARTICLE_TYPES = ("NewsArticle", "Article", "ReportageNewsArticle", "BlogPosting", "ClaimReview")
DATE_META = ("article:published_time", "date", "pubdate", "dc.date")
# Elements the page hides are not its text.
HIDDEN = "//*[@hidden or @aria-hidden='true']"
# htmldate: only dates the page states (no guesses from the text), with the time when given.
DATE_PARAMS = {"extensive_search": False, "original_date": True, "outputformat": "%Y-%m-%dT%H:%M:%S%z"}
# trafilatura's signal-based timeout is off (it works in a main thread only; the limits above
# bound its time) and so is its own tree-size guard (MAX_ELEMENTS is checked first).
TRAFILATURA_CONFIG = use_config()
TRAFILATURA_CONFIG.set("DEFAULT", "EXTRACTION_TIMEOUT", "0")
TRAFILATURA_CONFIG.set("DEFAULT", "EXTENSIVE_DATE_SEARCH", "off")
# The second pass, for a page the first found nothing in: a short page is an article too
# (the default wants 250 characters, and below that falls back to the whole page, menus and all).
SHORT_PAGE_CONFIG = use_config()
for _name, _value in TRAFILATURA_CONFIG.items("DEFAULT"):
    SHORT_PAGE_CONFIG.set("DEFAULT", _name, _value)
SHORT_PAGE_CONFIG.set("DEFAULT", "MIN_EXTRACTED_SIZE", "1")
SHORT_PAGE_CONFIG.set("DEFAULT", "MIN_OUTPUT_SIZE", "1")


class HtmlRefused(ValueError):
    """The page is too deeply nested, too large or too slow to parse; its reason is shown to the importer."""


@dataclass
class HtmlDocument:
    text: str
    title: str = ""
    url: str = ""
    author: str = ""
    published_at: str = ""
    site_name: str = ""


class _LimitsTarget:
    """lxml parser target that only counts: depth, elements, time."""

    def __init__(self, *, time_limit: float) -> None:
        self.deadline = time.monotonic() + time_limit
        self.time_limit = time_limit
        self.starts = 0
        self.depth = 0

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        self.starts += 1
        if self.starts % CLOCK_EVERY == 0 and time.monotonic() > self.deadline:
            raise HtmlRefused(f"The HTML took longer than {self.time_limit:g} s to read.")
        if self.starts > MAX_ELEMENTS:
            raise HtmlRefused(f"The HTML has more than {MAX_ELEMENTS:,} elements; an article page has far fewer.")
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise HtmlRefused(f"The HTML nests elements more than {MAX_DEPTH} deep.")

    def end(self, tag: str) -> None:
        self.depth -= 1

    def data(self, data: str) -> None:
        """Text is trafilatura's to read."""

    def comment(self, text: str) -> None:
        """Comments are not text (declared so lxml does not pass them as elements)."""

    def close(self) -> None:
        return None


def html_check(html: str, *, time_limit: float = DEFAULT_TIME_LIMIT_SECONDS) -> None:
    """HtmlRefused for a page past the limits, or whose text is not valid Unicode."""
    try:
        html.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates: what a page declared as UTF-7 can decode to; libxml2 reads UTF-8 only.
        raise HtmlRefused("The page's text is not valid Unicode (lone surrogates; declared as UTF-7?).") from None
    # no_network: never fetch a DTD; recover: pages in the wild are rarely valid.
    parser = etree.HTMLParser(target=_LimitsTarget(time_limit=time_limit), recover=True, no_network=True, remove_comments=True, remove_pis=True)
    try:
        parser.feed(html)
        parser.close()
    except etree.ParserError:  # "Document is empty"; what the target raises comes through as it is
        return


def json_ld_nodes(document: lxml_html.HtmlElement) -> Iterator[Mapping[str, Any]]:
    """Every object of the page's JSON-LD scripts, `@graph` members and list items included."""
    for script in document.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json" or not script.text:
            continue
        try:
            value = json.loads(script.text)
        except ValueError:
            continue
        stack: list[Any] = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(reversed(node))
            elif isinstance(node, dict):
                yield node
                graph = node.get("@graph")
                if isinstance(graph, list):
                    stack.extend(reversed(graph))


def is_type(node: Mapping[str, Any], name: str) -> bool:
    kind = node.get("@type")
    return kind == name or (isinstance(kind, list) and name in kind)


def parse_html(html: str) -> lxml_html.HtmlElement | None:
    try:
        return lxml_html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return None


def stated_date(document: lxml_html.HtmlElement | None) -> str:
    """The publication date as the page states it, with its time: JSON-LD datePublished of
    an article, else a date meta tag; as written (the importer checks it like any date),
    '' when none. htmldate reads many pages to the day only, and drops a date out of range
    where the importer should say why it refuses it."""
    if document is None:
        return ""
    for node in json_ld_nodes(document):
        if any(is_type(node, kind) for kind in ARTICLE_TYPES) and isinstance(found := node.get("datePublished"), str) and found.strip():
            return found.strip()
    for meta in document.iter("meta"):
        name = (meta.get("property") or meta.get("name") or "").strip().lower()
        if name in DATE_META and (content := (meta.get("content") or "").strip()):
            return content
    return ""


def html_to_document(html: str, *, url: str = "", time_limit: float = DEFAULT_TIME_LIMIT_SECONDS) -> HtmlDocument:
    """The page's article text (paragraphs separated by a blank line) and metadata;
    HtmlRefused for a page past the limits. `url`: where it was fetched from, if it was."""
    html_check(html, time_limit=time_limit)
    if not html.strip():
        return HtmlDocument(text="")
    # Precision first (no menus, no teasers); a page where that finds nothing gets a pass for recall.
    options: dict[str, Any] = {
        "url": url or None, "with_metadata": True, "include_comments": False, "include_tables": False, "prune_xpath": HIDDEN,
        "date_extraction_params": DATE_PARAMS,
    }
    document = trafilatura.bare_extraction(html, favor_precision=True, config=TRAFILATURA_CONFIG, **options)
    if document is None or isinstance(document, dict) or not (document.text or "").strip():
        document = trafilatura.bare_extraction(html, favor_recall=True, config=SHORT_PAGE_CONFIG, **options)
    if document is None or isinstance(document, dict):  # a dict only with as_dict=True
        return HtmlDocument(text="")
    paragraphs = (" ".join(line.split()) for line in (document.text or "").split("\n"))
    published_at = stated_date(parse_html(html)) or document.date or ""
    return HtmlDocument(
        text="\n\n".join(paragraph for paragraph in paragraphs if paragraph),
        title=" ".join((document.title or "").split()),
        url=(document.url or "").strip(),
        author=" ".join((document.author or "").split()),
        published_at=published_at,
        site_name=" ".join((document.sitename or "").split()),
    )


CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def declared_charset(head: bytes) -> str | None:
    """The charset a page declares in its first bytes, if any."""
    match = CHARSET.search(head[:4096])
    return match.group(1).decode("ascii").lower() if match else None
