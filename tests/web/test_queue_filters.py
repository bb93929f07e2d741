"""The queue's filters fit the data (issue 15, item 5): article metadata imported with the
articles is filterable and offered in the filter bar, the article filter takes a title, score
and priority each speak one scale in the bar and the rows, and the current saved view is marked.

Personas: reviewer (reads and filters the queue), outsider (no role: refused).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from django.urls import reverse

from factcheck.articles.models import Article
from factcheck.articles.services import articles_import_file
from factcheck.claims.models import Claim, SavedView
from tests.web.test_queue import HTMX, logged_in, make_article, make_claim, shown_ids

BBC_LIKE = [
    {"id": "business/001", "category": "business", "title": "Ad sales boost Time Warner profit", "text": "Quarterly profits at TimeWarner jumped 76%."},
    {"id": "business/002", "category": "business", "title": "Dollar gains on Greenspan speech", "text": "The dollar has hit its highest level in months."},
    {"id": "politics/001", "category": "politics", "title": "Labour plans maternity pay rise", "text": "Maternity pay for new mothers is to rise by £1,400."},
    {"id": "politics/002", "category": "politics", "title": "Watchdog probes e-mail deletions", "text": "The information commissioner is asking questions."},
    {"id": "tech/001", "category": "tech", "title": "Ink helps drive democracy in Asia", "text": "The Kyrgyz Republic is using invisible ink."},
]


@pytest.fixture(autouse=True)
def import_settings(settings, tmp_path: Path):  # type: ignore[no-untyped-def]
    settings.FACTCHECK_UPLOAD_DIR = tmp_path / "uploads"
    return settings


def claims_on(articles: list[Article]) -> dict[str, Claim]:
    """One claim per article, keyed by the article's title."""
    return {article.title: make_claim(article, priority=90.0 - n) for n, article in enumerate(articles)}


def names(claims: dict[str, Claim], html: str) -> set[str]:
    by_pk = {claim.pk: title for title, claim in claims.items()}
    return {by_pk[pk] for pk in shown_ids(html)}


def meta_options(html: str, key: str) -> list[str]:
    """The option values of the filter bar's select for metadata `key`."""
    found = re.search(rf'<select name="meta" data-meta-key="{re.escape(key)}">(.*?)</select>', html, re.S)
    assert found, f"no select for {key}"
    return re.findall(r'<option value="([^"]*)"', found.group(1))


def test_bbc_category_imported_with_the_articles_is_filterable_and_offered(reviewer, outsider, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bbc_news.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in BBC_LIKE), encoding="utf-8")
    batch = articles_import_file(path=path, start_pipeline=False)
    assert batch.rows_stored == len(BBC_LIKE)
    articles = list(Article.objects.filter(import_batch=batch).order_by("id"))
    assert [a.metadata for a in articles][:1] == [{"id": "business/001", "category": "business"}]
    claims = claims_on(articles)
    client = logged_in(reviewer)

    html = client.get(reverse("claims:list")).content.decode()
    # category groups the articles: offered with each value and its article count. id names
    # one article each: not offered (it is no group worth a filter).
    assert meta_options(html, "category") == ["", "category:business", "category:politics", "category:tech"]
    assert "business (2)" in html and "tech (1)" in html
    assert 'data-meta-key="id"' not in html

    business = client.get(reverse("claims:list"), {"meta": "category:business"}).content.decode()
    assert names(claims, business) == {"Ad sales boost Time Warner profit", "Dollar gains on Greenspan speech"}
    assert '<option value="category:business" selected>' in business
    either = client.get(reverse("claims:list"), {"meta": ["category:politics", "category:tech"]}).content.decode()
    assert names(claims, either) == {"Labour plans maternity pay rise", "Watchdog probes e-mail deletions", "Ink helps drive democracy in Asia"}
    # A key the bar does not offer still filters from a URL, and stays in the form.
    one = client.get(reverse("claims:list"), {"meta": "id:politics/002"}).content.decode()
    assert names(claims, one) == {"Watchdog probes e-mail deletions"}
    assert '<input type="hidden" name="meta" value="id:politics/002">' in one
    # Not key:value: reported and ignored.
    bad = client.get(reverse("claims:list"), {"meta": "politics"}).content.decode()
    assert "Ignored, not valid" in bad and "is not key:value" in bad and len(shown_ids(bad)) == len(BBC_LIKE)
    nul = client.get(reverse("claims:list"), {"meta": "category:busi\x00ness"}).content.decode()
    assert "Null characters are not allowed" in nul and len(shown_ids(nul)) == len(BBC_LIKE)

    assert logged_in(outsider).get(reverse("claims:list"), {"meta": "category:business"}).status_code == 403


def test_an_extra_csv_column_is_kept_and_filterable(reviewer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "desk.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "text", "Section", "outlet"])
        writer.writerow(["Council passes budget", "The council passed the budget.", "Metro", "Globe"])
        writer.writerow(["Schools reopen", "Schools reopened on Monday.", "Metro", "Globe"])
        writer.writerow(["Red Sox win", "The Red Sox won 5-3.", "Sports", "Globe"])
    batch = articles_import_file(path=path, start_pipeline=False)
    assert batch.rows_stored == 3
    articles = list(Article.objects.filter(import_batch=batch).order_by("id"))
    # Column names are read case-insensitively, so the key is lower case.
    assert [a.metadata for a in articles] == [{"section": "Metro"}, {"section": "Metro"}, {"section": "Sports"}]
    claims = claims_on(articles)
    client = logged_in(reviewer)
    assert meta_options(client.get(reverse("claims:list")).content.decode(), "section") == ["", "section:Metro", "section:Sports"]
    metro = client.get(reverse("claims:list"), {"meta": "section:Metro"}).content.decode()
    assert names(claims, metro) == {"Council passes budget", "Schools reopen"}
    # The same filter in the CSV export and the API: one definition.
    response = client.get(reverse("reports:claims_csv"), {"meta": "section:Sports"})
    export = b"".join(response.streaming_content).decode()
    assert claims["Council passes budget"].sentence not in export and claims["Red Sox win"].sentence in export


def test_article_filter_takes_a_title_with_suggestions(reviewer, outsider) -> None:  # type: ignore[no-untyped-def]
    budget = make_article(title="Mayor defends the city budget")
    hearing = make_article(title="Budget hearing runs late")
    other = make_article(title="Snow closes schools")
    claims = {a.title: make_claim(a) for a in (budget, hearing, other)}
    client = logged_in(reviewer)

    html = client.get(reverse("claims:list")).content.decode()
    assert 'name="article_title"' in html and 'list="article-titles"' in html and '<datalist id="article-titles">' in html
    assert 'type="number" name="article"' not in html  # no id box any more

    found = client.get(reverse("claims:list"), {"article_title": "BUDGET"}).content.decode()
    assert names(claims, found) == {"Mayor defends the city budget", "Budget hearing runs late"}
    assert 'value="BUDGET"' in found

    suggestions = client.get(reverse("claims:article_titles"), {"article_title": "budget"}, **HTMX)
    assert suggestions.status_code == 200
    options = re.findall(r'<option value="([^"]+)">', suggestions.content.decode())
    assert sorted(options) == ["Budget hearing runs late", "Mayor defends the city budget"]
    assert client.get(reverse("claims:article_titles"), {"article_title": "  "}).content == b""
    assert client.post(reverse("claims:article_titles"), {"article_title": "budget"}).status_code == 405
    assert logged_in(outsider).get(reverse("claims:article_titles"), {"article_title": "budget"}).status_code == 403

    # An older link's article id still filters, shown by the article's title, removable.
    by_id = client.get(reverse("claims:list"), {"article": other.pk, "status": "new"}).content.decode()
    assert shown_ids(by_id) == [claims["Snow closes schools"].pk]
    assert "Snow closes schools" in by_id and f'<input type="hidden" name="article" value="{other.pk}">' in by_id
    assert 'href="/claims/?status=new" aria-label="Remove the article filter"' in by_id


def test_score_and_priority_each_have_one_scale_in_the_bar_and_the_rows(reviewer) -> None:  # type: ignore[no-untyped-def]
    high = make_claim(score=0.9, priority=70.0, priority_parts={"checkworthiness": 27.0, "type": 8})
    low = make_claim(score=0.3, priority=80.0)
    client = logged_in(reviewer)
    html = client.get(reverse("claims:list")).content.decode()
    # The bar asks for the score on 0-1 and says which number the rows show it as.
    assert "Score from (0–1)" in html and "Score to (0–1)" in html
    assert "Score: the model’s check-worthiness, 0–1, as each row shows it" in html
    assert "Priority <span class=\"unit\">(points)</span>" in html
    row = html[html.index(f'id="claim-{high.pk}"'):]
    assert "score 0.90" in row[: row.index("</tr>")]
    # What the bar filters on is what the rows show: score 0.5 and up keeps the 0.90 row.
    filtered = client.get(reverse("claims:list"), {"score_min": "0.5"}).content.decode()
    assert shown_ids(filtered) == [high.pk]
    assert "score 0.30" in html and low.pk in shown_ids(html)


def test_the_current_saved_view_is_marked(reviewer) -> None:  # type: ignore[no-untyped-def]
    make_claim(status="check")
    client = logged_in(reviewer)
    checking = SavedView.objects.create(user=reviewer, name="To check", query="status=check")
    # Saved with its parameters in another order: still this page's view when they match.
    mine = SavedView.objects.create(user=reviewer, name="Mine new", query="status=new&assignee=mine")

    def current(html: str) -> list[str]:
        return re.findall(r'<a href="/claims/views/(\d+)/" aria-current="page"', html)

    assert current(client.get(reverse("claims:list")).content.decode()) == []
    assert current(client.get(reverse("claims:list"), {"status": "check"}).content.decode()) == [str(checking.pk)]
    assert current(client.get(reverse("claims:list"), {"assignee": "mine", "status": "new", "q": ""}).content.decode()) == [str(mine.pk)]
    assert current(client.get(reverse("claims:list"), {"status": ["check", "new"]}).content.decode()) == []
    # A filter change with htmx swaps the results, the saved views with them, re-marked.
    swapped = client.get(reverse("claims:list"), {"status": "check"}, HTTP_HX_TARGET="queue-results", **HTMX).content.decode()
    assert "<!DOCTYPE" not in swapped and current(swapped) == [str(checking.pk)]
    # Opening a view lands on its page, marked.
    opened = client.get(reverse("claims:view_open", args=[checking.pk]), follow=True).content.decode()
    assert current(opened) == [str(checking.pk)]


def test_an_id_past_the_database_integer_matches_nothing(reviewer) -> None:  # type: ignore[no-untyped-def]
    """Like the API's, a user id past bigint is an id no one holds: an empty queue. One of
    thousands of digits (the hostile suite's find: Python refuses to read it as an int, a
    500) is refused with the form's message, as any bad filter is."""
    make_claim()
    client = logged_in(reviewer)
    for field in ("assignee", "outlet", "article"):
        response = client.get(reverse("claims:list"), {field: str(2**70)})
        assert response.status_code == 200 and shown_ids(response.content.decode()) == [], field
    response = client.get(reverse("claims:list"), {"assignee": "9" * 5000})
    assert response.status_code == 200 and "Assignee must be" in response.content.decode()


@pytest.mark.django_db
def test_the_metadata_filter_finds_what_a_jsonb_containment_finds() -> None:
    """The filter reads the pairs PostgreSQL writes into articles.metadata_pairs; it finds the
    articles that `metadata @> {key: value}` finds, one value at a time, for numbers written
    two ways, strings that spell numbers or booleans, nested values, odd keys and long values."""
    from django.db.models import Q

    from factcheck.claims.queue.filters import _metadata_candidates, metadata_q

    stored = [
        {"year": 2004}, {"year": 2004.0}, {"year": "2004"}, {"year": "2004.0"}, {"year": 20040}, {"year": -0.0},
        {"flag": True}, {"flag": "true"}, {"flag": None}, {"tags": ["a", "b"]}, {"tags": "a"}, {"tags": {"a": 1}},
        {"k:ey": 'quote " and: colon'}, {"long": "x" * 5000}, {"": "empty key"}, {"year": 1e300}, {},
    ]
    articles = [make_article(title=f"Meta {n}", metadata=metadata) for n, metadata in enumerate(stored)]
    asked = [
        "year:2004", "year:2004.0", "year:2004.00", "year:20040", "year:0", "year:-0", "year:1e300", "flag:true", "flag:null",
        "tags:a", "tags:b", 'k:ey:quote " and: colon', "long:" + "x" * 290, ":empty key", "year:nan", "year:",
    ]
    ids = [article.pk for article in articles]
    for pair in asked:
        key, _, value = pair.partition(":")
        containment = Q()
        for candidate in _metadata_candidates(value.strip()):
            containment |= Q(metadata__contains={key.strip(): candidate})
        expected = set(Article.objects.filter(containment, pk__in=ids).values_list("pk", flat=True))
        assert set(Article.objects.filter(metadata_q([pair]), pk__in=ids).values_list("pk", flat=True)) == expected, pair
    assert set(Article.objects.filter(metadata_q(["year:2004"]), pk__in=ids).values_list("title", flat=True)) == {"Meta 0", "Meta 1", "Meta 2"}
