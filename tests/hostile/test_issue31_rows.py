"""Issue 31, items 1, 2 and 5, each as it was found: one bad row (a date past year 9999, a row
nested 100,000 deep, a rating of 1e999 or "inf", a second record under a known id) cost its
file's good rows, the pages that read it, or a claim's text."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse

from factcheck.articles.models import Article, ImportBatch
from factcheck.articles.readers import MAX_JSON_DEPTH
from factcheck.articles.services import articles_import_file, import_text
from factcheck.factchecks.models import FactCheck
from factcheck.factchecks.services import factchecks_import_file
from pipeline.text import content_hash
from tests.conftest import PERSONA_PASSWORD
from tests.factchecks.test_import import claimreview

pytestmark = pytest.mark.django_db

YEAR_10000 = "9999-12-31T23:59:59-14:00"  # 10000-01-01 13:59:59 in UTC
DEEP = 100_000


@pytest.fixture(autouse=True)
def import_settings(settings, tmp_path: Path):  # type: ignore[no-untyped-def]
    settings.FACTCHECK_UPLOAD_DIR = tmp_path / "uploads"
    settings.FACTCHECK_IMPORT_CHUNK_ROWS = 10


def reasons(batch: Any) -> dict[int, str]:
    return {error["row"]: error["reason"] for error in batch.errors}


# --- Item 1: a date past year 9999 ------------------------------------------------------------


def test_pasted_article_dated_past_year_9999_is_refused_with_its_reason(admin_user) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=admin_user.username, password=PERSONA_PASSWORD)
    response = client.post(reverse("articles:paste"), {"text": "A pasted article.", "published_at": YEAR_10000})
    # The form runs the import's own checks: the reason is on the form, nothing is stored.
    assert response.status_code == 400
    assert "outside the years 1700-2199" in response.content.decode()
    assert not Article.objects.exists()
    # Through the service a form does not guard, it is the batch's rejected row.
    batch = import_text(fields={"text": "A pasted article.", "published_at": YEAR_10000}, created_by=admin_user)
    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected) == (1, 0, 1)
    assert "outside the years 1700-2199" in reasons(batch)[1]
    assert not Article.objects.exists()
    # The pages that read every article still answer.
    assert client.get("/exports/claims.csv").status_code == 200
    assert client.get("/api/v1/claims/?limit=200").status_code == 200


def test_csv_with_one_row_past_year_9999_stores_the_other_49(tmp_path: Path) -> None:
    path = tmp_path / "fifty.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "published_at"])
        for i in range(50):
            writer.writerow([f"Article {i} says 40% of rents rose.", YEAR_10000 if i == 20 else "2024-05-31T10:00:00+02:00"])
    batch = articles_import_file(path=path)
    assert (batch.status, batch.rows_read, batch.rows_stored, batch.rows_rejected) == (ImportBatch.Status.DONE, 50, 49, 1)
    assert batch.errors[0]["row"] == 21 and batch.errors[0]["where"] == "line 22"
    # What was stored reads back in Python and psycopg: the pipeline run over it cannot trip.
    assert min(Article.objects.values_list("published_at", flat=True)) == datetime(2024, 5, 31, 8, tzinfo=UTC)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("dated.jsonl", json.dumps({"text": "A dated article.", "published_at": YEAR_10000}) + "\n"),
        ("dated.html", f'<html><head><meta property="article:published_time" content="{YEAR_10000}"></head><body><p>A dated article.</p></body></html>'),
        ("old.jsonl", json.dumps({"text": "A dated article.", "published_at": "0001-01-01T00:00:00+14:00"}) + "\n"),
    ],
)
def test_jsonl_and_html_meta_dates_take_the_same_bounds(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    batch = articles_import_file(path=path)
    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected) == (1, 0, 1)
    assert "outside the years" in reasons(batch)[1]


def test_the_table_refuses_a_date_no_import_would_accept() -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Article.objects.create(text="x", content_hash=content_hash("x"), published_at=datetime(2300, 1, 1, tzinfo=UTC))
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO articles (text, content_hash, title, url, author, metadata, created_at, published_at) "
                       "VALUES ('y', 'h', '', '', '', '{}', now(), %s::timestamptz)", [YEAR_10000])


def test_factcheck_dates_take_the_same_bounds(tmp_path: Path) -> None:
    path = tmp_path / "reviews.json"
    path.write_text(json.dumps([claimreview(1, datePublished=YEAR_10000), claimreview(2), claimreview(3, datePublished="31 December 9999")]))
    batch = factchecks_import_file(path=path)
    assert (batch.rows_read, batch.rows_created, batch.rows_rejected) == (3, 1, 2)
    assert all("outside the years" in reason for reason in reasons(batch).values())


# --- Item 2: one malformed row failed its whole file ------------------------------------------


def test_jsonl_row_nested_100000_deep_is_one_rejected_row(tmp_path: Path) -> None:
    good = [json.dumps({"text": f"Good article {i}."}) for i in range(3)]
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join([good[0], '{"text": "x", "extra": ' + "[" * DEEP + "]" * DEEP + "}", *good[1:]]) + "\n")
    out = io.StringIO()
    call_command("import_articles", str(path), "--no-pipeline", stdout=out, stderr=io.StringIO())
    batch = ImportBatch.objects.get()
    assert (batch.status, batch.rows_read, batch.rows_stored, batch.rows_rejected) == (ImportBatch.Status.DONE, 4, 3, 1)
    assert reasons(batch) == {2: f"Nested more than {MAX_JSON_DEPTH} levels deep."}
    assert "row 2 (line 2): Nested more than" in out.getvalue()


def test_a_short_first_line_with_a_nul_is_that_rows_problem_not_utf16(tmp_path: Path) -> None:
    """Found by the property suite: `{\x00` as the first line was half NUL bytes, so the whole
    file was refused as UTF-16 and its good row lost."""
    path = tmp_path / "nul.jsonl"
    path.write_bytes(b'{\x00\n' + json.dumps({"text": "Good article: rents rose 4% in May."}).encode() + b"\n")
    batch = articles_import_file(path=path)
    assert (batch.status, batch.rows_read, batch.rows_stored, batch.rows_rejected) == (ImportBatch.Status.DONE, 2, 1, 1)


@pytest.mark.parametrize(
    "bad",
    [
        {"bestRating": 1e999},  # json.dumps writes Infinity; the file says 1e999
        {"ratingValue": "inf"},
        {"ratingValue": "nan"},
    ],
)
def test_claimreview_with_an_infinite_rating_keeps_the_good_rows(tmp_path: Path, bad: dict[str, Any]) -> None:
    rating = {"@type": "Rating", "ratingValue": 2, "bestRating": 5, "worstRating": 1, "alternateName": "Mostly false"} | bad
    text = json.dumps([claimreview(1), claimreview(2, reviewRating=rating), claimreview(3)]).replace("Infinity", "1e999")
    path = tmp_path / "reviews.json"
    path.write_text(text)
    out = io.StringIO()
    call_command("import_factchecks", str(path), stdout=out, stderr=io.StringIO())
    assert FactCheck.objects.filter(external_id__in=[f"https://checks.example.org/review/{n}" for n in (1, 3)]).count() == 2
    second = FactCheck.objects.filter(external_id="https://checks.example.org/review/2").first()
    if "1e999" in text:
        # A number that is not finite is not stored as one: the record is refused, by its line.
        assert second is None and "row 2 (line 1): A number out of range (inf)" in out.getvalue()
    else:
        # A rating given as the word "inf" is no number: the words rate it, as without a number.
        assert second is not None and second.rating_value == 2


def test_claimreview_array_item_nested_too_deep_is_stepped_over(tmp_path: Path) -> None:
    deep = '{"@type": "ClaimReview", "x": ' + "[" * DEEP + "]" * DEEP + "}"
    path = tmp_path / "reviews.json"
    path.write_text("[\n" + ",\n".join([json.dumps(claimreview(1)), deep, json.dumps(claimreview(3))]) + "\n]\n")
    batch = factchecks_import_file(path=path)
    assert (batch.rows_read, batch.rows_created, batch.rows_rejected) == (3, 2, 1)
    assert batch.errors == [{"row": 2, "where": "line 3", "reason": f"Nested more than {MAX_JSON_DEPTH} levels deep."}]


def test_nan_and_infinity_literals_in_json_lines_are_row_errors(tmp_path: Path) -> None:
    path = tmp_path / "articles.jsonl"
    path.write_text('{"text": "Good one."}\n{"text": "Bad one.", "score": NaN}\n{"text": "Bad two.", "score": -Infinity}\n{"text": "Good two."}\n')
    batch = articles_import_file(path=path)
    assert (batch.rows_stored, batch.rows_rejected) == (2, 2)
    assert set(reasons(batch)) == {2, 3}


# --- Item 5: silent merges --------------------------------------------------------------------


def test_two_claimreviews_under_one_url_keep_the_first_and_list_the_second(tmp_path: Path) -> None:
    path = tmp_path / "reviews.json"
    path.write_text(json.dumps([claimreview(1), claimreview(1, claimReviewed="Another claim under the same url.")]))
    batch = factchecks_import_file(path=path)
    assert (batch.rows_read, batch.rows_created, batch.rows_updated, batch.rows_rejected) == (2, 1, 0, 1)
    assert FactCheck.objects.get().claim == "Claim number 1 about 1,500 people."
    assert "Same id (https://checks.example.org/review/1) as row 1 of this file" in reasons(batch)[2]


def test_same_id_across_chunks_of_one_file_is_listed_too(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_IMPORT_CHUNK_ROWS = 2
    path = tmp_path / "reviews.json"
    path.write_text(json.dumps([claimreview(1), claimreview(2), claimreview(1, claimReviewed="Overwrites nothing.")]))
    batch = factchecks_import_file(path=path)
    assert (batch.rows_created, batch.rows_rejected) == (2, 1)
    assert "as an earlier row of this file" in reasons(batch)[3]
    # A later file under the same id is an update, as before.
    again = tmp_path / "later.json"
    again.write_text(json.dumps([claimreview(1, claimReviewed="The desk edited its claim.")]))
    assert factchecks_import_file(path=again).rows_updated == 1
    assert FactCheck.objects.get(external_id__endswith="/1").claim == "The desk edited its claim."
