"""The claims CSV: the queue's filters, every row, streamed in flat memory, safe in a spreadsheet."""

from __future__ import annotations

import csv
import io
import tracemalloc
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.http import QueryDict
from django.test import Client, override_settings
from django.urls import reverse

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim
from factcheck.claims.queue import selectors as claim_selectors
from factcheck.claims.queue.filters import queue_filter_from
from factcheck.claims.workflow import services
from factcheck.reports.csv_export import HEADER, neutralise
from tests.conftest import PERSONA_PASSWORD, queue_order_day
from tests.reports.helpers import claim_in_article, cluster_of, publish

pytestmark = pytest.mark.django_db

URL = reverse("reports:claims_csv")
NEWEST = datetime(2026, 3, 8, 12, tzinfo=UTC)


@pytest.fixture(autouse=True)
def order_day(db) -> None:  # type: ignore[no-untyped-def]
    queue_order_day(NEWEST)


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def download(client: Client, query: str = "") -> tuple[str, list[dict[str, str]]]:
    response = client.get(URL + query)
    assert response.status_code == 200, response.content
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="claims-')
    text = b"".join(response.streaming_content).decode("utf-8")
    return text, list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def test_rows_carry_claim_article_and_verdict_columns(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    checked = claim_in_article(
        sentence="ICE detained nearly 1,500 people in May.", outlet="Boston Herald", title="ICE in Boston", url="https://herald.example/ice",
        speaker="Todd Lyons", speaker_title="Acting ICE Director", attribution="reported", priority=80.0, tags=["ice", "boston"],
        quantities=[{"value": 1500.0, "unit": "people", "hedge": "approximately-below"}], claim_types=["numeric", "official_action"],
        seen_at=NEWEST - timedelta(days=7),
    )
    publish(checked, author=reviewer, approver=editor, rating="mostly_false", headline="Arrests were lower", explanation="ICE data shows 1,100.")
    waiting = claim_in_article(sentence="Boston has 4,000 fewer officers.", priority=10.0, status=Claim.Status.NEW, seen_at=NEWEST)
    text, rows = download(login(reviewer))
    assert text.splitlines()[0].split(",") == HEADER
    assert [row["appearance_id"] for row in rows] == [str(checked.pk), str(waiting.pk)]  # queue order
    first = rows[0]
    assert {key: first[key] for key in (
        "claim", "claim_type", "all_types", "quantities", "speaker", "speaker_title", "article", "article_url", "outlet", "status", "tags",
        "assignee", "verdict_revision", "verdict_status", "verdict_rating", "verdict_headline", "verdict_claim_reviewed", "verdict_explanation",
        "verdict_author", "published_revision", "published_rating", "approved_by", "claim_appearances",
    )} == {
        "claim": "ICE detained nearly 1,500 people in May.", "claim_type": "Numeric / statistical", "all_types": "numeric, official_action",
        "quantities": "under 1,500 people", "speaker": "Todd Lyons", "speaker_title": "Acting ICE Director",
        "article": "ICE in Boston", "article_url": "https://herald.example/ice", "outlet": "Boston Herald", "status": "Approved",
        "tags": "ice, boston", "assignee": reviewer.username, "verdict_revision": "1", "verdict_status": "Approved",
        "verdict_rating": "Mostly false", "verdict_headline": "Arrests were lower", "verdict_explanation": "ICE data shows 1,100.",
        "verdict_claim_reviewed": "ICE detained nearly 1,500 people in May.",
        "verdict_author": reviewer.username, "published_revision": "1", "published_rating": "Mostly false", "approved_by": editor.username,
        "claim_appearances": "1",
    }
    assert first["approved_at"] and first["checkworthiness"] == "0.8" and first["priority"] == "85.0"  # the queue's rank: 80 standing + 5 recency (a week old)
    assert (rows[1]["verdict_rating"], rows[1]["published_rating"], rows[1]["status"]) == ("", "", "New")
    # The published line names the organisation (the tests' is a real one), the unpublished one no one.
    assert (first["published_by"], rows[1]["published_by"]) == ("Factcheck desk", "")


def test_a_demo_organisations_published_lines_say_so(reviewer, editor, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_ORG_URL = ""  # a fresh install's seed: a demo
    checked = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", priority=80.0)
    publish(checked, author=reviewer, approver=editor, rating="mostly_false", headline="Lower", explanation="ICE data shows 1,100.")
    _, rows = download(login(reviewer))
    assert [row["published_by"] for row in rows] == ["Factcheck desk (demo organisation)"]


def test_cluster_columns_and_a_pending_revision(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    first = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", outlet="Boston Herald", priority=9.0)
    again = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", outlet="MassLive", priority=8.0)
    cluster = cluster_of([first, again], first=first)
    publish(first, author=reviewer, approver=editor, rating="false", headline="It was 1,100")
    first.refresh_from_db()
    services.verdict_draft(claim=first, actor=reviewer, rating="mostly_false", headline="Closer to 1,100", explanation="Revised.")
    _, rows = download(login(reviewer))
    assert [(row["claim_key"], row["claim_appearances"], row["claim_outlets"]) for row in rows] == [(cluster.cluster_key, "2", "2")] * 2
    # The current revision awaits approval; the published one is still revision 1.
    assert {key: rows[0][key] for key in ("verdict_revision", "verdict_status", "verdict_rating", "published_revision", "published_rating")} == {
        "verdict_revision": "2", "verdict_status": "Awaiting approval", "verdict_rating": "Mostly false",
        "published_revision": "1", "published_rating": "False",
    }


def test_the_same_filters_give_the_same_claims_as_the_queue(reviewer, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    for n in range(30):
        claim_in_article(
            sentence=f"Officers made {n} arrests." if n % 2 else "Officers made many arrests.",
            speaker="Todd Lyons" if n % 3 else "Michelle Wu", outlet="MassLive" if n % 5 else "WBUR",
            status=Claim.Status.NEW if n % 4 else Claim.Status.CHECK, priority=float(n), quantities=[{"value": n}] if n % 2 else [],
        )
    query = "status=new&speaker=lyons&has_number=yes&score_min=0.5&q=arrests"
    client = login(reviewer)
    client.get(reverse("claims:list"))
    # The claims in one query, their verdicts and clusters in three per chunk, however many rows.
    with django_assert_max_num_queries(6):
        _, rows = download(client, "?" + query)
    values = queue_filter_from(QueryDict(query)).values
    expected = claim_selectors.queue_claim_ids(user=reviewer, values=values, limit=1000)
    assert [int(row["appearance_id"]) for row in rows] == expected
    assert 0 < len(expected) < 30


@override_settings(FACTCHECK_QUEUE_PAGE_SIZE=5, FACTCHECK_EXPORT_CHUNK_ROWS=7)
def test_no_row_cap(reviewer) -> None:  # type: ignore[no-untyped-def]
    article, _ = article_ingest(data=ArticleInput(text="x" * 10_000), batch=None)
    Claim.objects.bulk_create(
        Claim(article=article, claim_key=f"{n:040x}", sentence=f"Claim {n}.", start_offset=n, end_offset=n + 1, priority=n % 13) for n in range(123)
    )
    _, rows = download(login(reviewer))
    assert len(rows) == 123 and len({row["appearance_id"] for row in rows}) == 123


def test_formula_cells_are_neutralised_and_numbers_are_not(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim_in_article(
        sentence='=HYPERLINK("http://evil.example","click")', speaker="@SUM(A1)", speaker_title="+1 strategist",
        tags=["-2+3", "\tcmd"], dismiss_reason="\r=1", priority=5.0,
    )
    text, rows = download(login(reviewer))
    row = rows[0]
    assert (row["claim"], row["speaker"], row["speaker_title"], row["tags"], row["dismiss_reason"]) == (
        "'=HYPERLINK(\"http://evil.example\",\"click\")", "'@SUM(A1)", "'+1 strategist", "'-2+3, \tcmd", "'\r=1",
    )
    # The queue's rank: 5 standing + 10 recency (the newest claim stored).
    assert row["priority"] == "15.0" and row["checkworthiness"] == "0.8"
    for cells in list(csv.reader(io.StringIO(text)))[1:]:
        assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("=1", "'=1"), ("+1", "'+1"), ("-1", "'-1"), ("@a", "'@a"), ("\tx", "'\tx"), ("\rx", "'\rx"), ("a=1", "a=1"), ("", "")],
)
def test_neutralise(value: str, expected: str) -> None:
    assert neutralise(value) == expected


def test_bom_option(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim_in_article(sentence="Café owners paid €1,200 more in rent.")
    client = login(reviewer)
    with_bom, rows = download(client, "?bom=1")
    without, _ = download(client)
    assert with_bom.startswith("\ufeffappearance_id,") and without.startswith("appearance_id,")
    assert rows[0]["claim"] == "Café owners paid €1,200 more in rent."
    response = client.get(URL + "?bom=yes")
    assert response.status_code == 400 and b"bom must be 1" in response.content


def test_invalid_filters_are_refused_not_ignored(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    response = login(reviewer).get(URL + "?status=bogus&score_min=2")
    assert response.status_code == 400
    assert b"status:" in response.content and b"score_min:" in response.content


def test_access_method_and_no_side_effects(reviewer, editor, admin_user, outsider) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    events = AuditEvent.objects.count()
    for user in (reviewer, editor, admin_user):
        _, rows = download(login(user))
        assert [row["appearance_id"] for row in rows] == [str(claim.pk)]
    assert login(outsider).get(URL).status_code == 403
    anonymous = Client().get(URL)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login/")
    assert login(reviewer).post(URL).status_code == 405
    version = claim.cluster.version
    claim.refresh_from_db()
    assert (claim.cluster.version, AuditEvent.objects.count()) == (version, events)


def test_queue_links_to_the_export_with_its_filters(reviewer) -> None:  # type: ignore[no-untyped-def]
    response = login(reviewer).get(reverse("claims:list") + "?status=new&speaker=Lyons&status=check&after=xyz")
    html = response.content.decode()
    assert f'href="{URL}?status=new&amp;status=check&amp;speaker=Lyons"' in html
    assert f'href="{URL}?status=new&amp;status=check&amp;speaker=Lyons&amp;bom=1"' in html


def _peak_while_streaming(client: Client) -> tuple[int, int]:
    """(rows, peak traced bytes) while the whole CSV goes through the response."""
    tracemalloc.start()
    try:
        response = client.get(URL)
        lines = sum(chunk.count(b"\n") for chunk in response.streaming_content)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return lines - 1, peak


@override_settings(FACTCHECK_EXPORT_CHUNK_ROWS=250)
def test_memory_stays_flat_as_rows_grow(reviewer) -> None:  # type: ignore[no-untyped-def]
    article, _ = article_ingest(data=ArticleInput(text="y" * 100, outlet="MassLive"), batch=None)
    sentence = "Officials said the programme cost 4.2 million dollars over three years, twice the estimate. "
    client = login(reviewer)
    client.get(reverse("claims:list"))  # session, role, templates loaded before measuring

    def add(start: int, count: int) -> None:
        Claim.objects.bulk_create(
            (Claim(article=article, claim_key=f"{n:040x}", sentence=sentence, start_offset=n, end_offset=n + 1, priority=n % 97)
             for n in range(start, start + count)),
            batch_size=2000,
        )

    add(0, 1_000)
    small_rows, small_peak = _peak_while_streaming(client)
    add(1_000, 9_000)
    large_rows, large_peak = _peak_while_streaming(client)
    assert (small_rows, large_rows) == (1_000, 10_000)
    # Ten times the rows (about 2 MB more CSV) in the same memory, give or take one chunk.
    assert large_peak < small_peak * 1.5 + 256 * 1024, (small_peak, large_peak)
