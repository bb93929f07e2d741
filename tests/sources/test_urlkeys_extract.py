"""URL variants and copies of one article, and what feeds and pages hold (pure functions)."""

from __future__ import annotations

import gzip
import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from factcheck.sources.extract import ExtractError, claim_reviews, feed_items, page_article, section_links, sitemap_items
from factcheck.sources.urlkeys import normalise_url, text_fingerprint, url_key
from tests.sources.newsserver import SHARED_DATA

WEB_PAGES = SHARED_DATA / "web_pages"


@pytest.mark.parametrize(
    "variant",
    [
        "https://www.news.example/world/story-1",
        "http://news.example/world/story-1/",
        "https://news.example/world/story-1?utm_source=rss&utm_medium=feed",
        "https://news.example/world/story-1?fbclid=abc#comments",
        "https://news.example/world/story-1/amp",
        "https://news.example/amp/world/story-1",
        "https://news.example/world/story-1.amp",
        "https://amp.news.example/world/story-1",
        "HTTPS://NEWS.EXAMPLE:443/world//story-1",
    ],
)
def test_url_variants_share_one_key(variant: str) -> None:
    assert url_key(variant) == url_key("https://news.example/world/story-1")


def test_other_pages_keep_other_keys() -> None:
    assert url_key("https://news.example/world/story-2") != url_key("https://news.example/world/story-1")
    assert url_key("https://news.example/search?q=a") != url_key("https://news.example/search?q=b")
    assert normalise_url("https://news.example/p?b=2&a=1&utm_campaign=x") == "https://news.example/p?a=1&b=2"
    assert url_key("mailto:desk@news.example") == "" and url_key("not a url") == ""


def test_a_text_fingerprint_ignores_spacing_case_and_punctuation() -> None:
    original = "The minister said: “Unemployment fell by 3%.”\n\nIt did not."
    copy = "the minister said unemployment fell by 3% -- it did NOT"
    assert text_fingerprint(original) == text_fingerprint(copy)
    assert text_fingerprint(original) != text_fingerprint("The minister said unemployment rose by 3%. It did not.")
    assert text_fingerprint("  ...  ") == ""


def test_rss_items_keep_their_dates_and_authors() -> None:
    body = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
        b"<item><title>  First   story </title><link>/news/1</link><author>a@b.c (Ann Writer)</author>"
        b"<pubDate>Tue, 01 Mar 2005 09:30:00 +0100</pubDate></item>"
        b"<item><title>No link</title></item></channel></rss>"
    )
    items = feed_items(body, base_url="https://news.example/feed.rss")
    assert len(items) == 1
    assert items[0].url == "https://news.example/news/1"
    assert items[0].title == "First story"
    assert items[0].published_at == datetime(2005, 3, 1, 8, 30, tzinfo=UTC)
    assert "Ann Writer" in items[0].author


def test_not_a_feed_is_an_error() -> None:
    with pytest.raises(ExtractError):
        feed_items(b"<html><body>Hello</body></html>", base_url="https://news.example/")


def test_news_sitemaps_plain_and_gzipped() -> None:
    body = (
        b'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        b'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"><url><loc>https://news.example/a</loc>'
        b"<news:news><news:publication_date>2024-05-31T14:00:00+02:00</news:publication_date><news:title>A</news:title></news:news></url>"
        b"<url><loc>https://news.example/b</loc><lastmod>2024-06-01</lastmod></url></urlset>"
    )
    for raw in (body, gzip.compress(body)):
        items = feed_items(raw, base_url="https://news.example/sitemap.xml")
        assert [(item.url, item.title, item.published_at) for item in items] == [
            ("https://news.example/a", "A", datetime(2024, 5, 31, 12, 0, tzinfo=UTC)),
            ("https://news.example/b", "", datetime(2024, 6, 1, tzinfo=UTC)),
        ]


def test_a_sitemap_with_an_external_entity_is_not_expanded() -> None:
    body = (
        b'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://n.example/&x;</loc></url></urlset>'
    )
    items = sitemap_items(body, base_url="https://n.example/")
    assert all("root:" not in item.url for item in items)


def test_section_page_links_are_the_sites_stories() -> None:
    page = (
        "<html><body><nav><a href='/'>Home</a><a href='/politics'>Politics</a></nav>"
        "<a href='/politics/2024/05/minister-resigns'>Minister resigns</a>"
        "<a href='https://www.news.example/politics/2024/05/minister-resigns#top'>again</a>"
        "<a href='https://elsewhere.example/politics/2024/x'>elsewhere</a>"
        "<a href='/a-long-story-slug-without-any-folders-at-all'>Long</a></body></html>"
    )
    items = section_links(page, base_url="https://www.news.example/politics")
    assert [item.url for item in items] == [
        "https://www.news.example/politics/2024/05/minister-resigns",
        "https://www.news.example/a-long-story-slug-without-any-folders-at-all",
    ]


def test_claim_reviews_are_found_in_json_ld_graphs() -> None:
    node = {"@type": "ClaimReview", "claimReviewed": "X"}
    page = f'<html><head><script type="application/ld+json">{json.dumps({"@graph": [{"@type": "WebPage"}, node]})}</script>' \
        '<script type="application/ld+json">{not json</script></head><body></body></html>'
    assert claim_reviews(page) == [node]


@pytest.mark.skipif(not (WEB_PAGES / "pages").is_dir(), reason=f"real pages not found under {WEB_PAGES} (set FACTCHECK_SHARED_DATA)")
@pytest.mark.parametrize(
    ("name", "day"),
    [
        ("boingboing.net.millenials.html", "2013-07-19"),
        ("theguardian.com.academics.html", "2020-01-20"),
        ("reuters.com.parasite.html", "2020-01-20"),
        ("vice.com.amazon.html", "2019-08-21"),
        ("phys.org.tool.html", "2019-10-22"),
    ],
)
def test_real_pages_give_text_title_and_the_stated_date(name: str, day: str) -> None:
    html_text = Path(WEB_PAGES / "pages" / name).read_bytes().decode("utf-8", errors="replace")
    article = page_article(html_text, url=f"https://example.org/{name}")
    assert len(article.text) > 1000
    assert article.title
    assert article.published_at is not None and article.published_at.date().isoformat() <= day
    assert article.published_at.date().isoformat() >= "2013-01-01"
    assert "cookie" not in article.text.lower()[:200]


def test_a_page_without_text_is_an_error() -> None:
    with pytest.raises(ExtractError):
        page_article("<html><head><title>t</title></head><body><script>var a = 1;</script></body></html>", url="https://news.example/")


def test_a_page_of_too_many_elements_is_refused_before_it_is_parsed() -> None:
    started = time.monotonic()
    with pytest.raises(ExtractError, match="elements"):
        page_article("<p>Short paragraph.</p>" * 250_000, url="https://news.example/")
    assert time.monotonic() - started < 2
