"""The class of bug behind issue 31, as properties: every reader and importer (CSV, JSON lines,
ZIP, HTML, ClaimReview JSON-LD documents and lines, LIAR, Snopes), every date and number field,
every form and the pages' and the API's query parameters get generated hostile values (extreme
dates and numbers, NaN and infinities, deep nesting, odd encodings, control characters, huge
fields), mixed with good rows. What must hold whatever they are:

- never a server error: an import ends done, with counts that add up; a page answers < 500;
- never a good row lost: every good row of the file is stored;
- each bad row reported with where it is (its line, or its ZIP member);
- what an import accepted can be read back by Python and psycopg (so no run, page or export
  trips over it later): dates within the years an import accepts.

Bounded for CI (tests/hostile/strategies.py: HOSTILE_EXAMPLES examples a property, default
15); `HYPOTHESIS_PROFILE=hostile-deep` runs 300. A failure prints the falsifying example, and
`--hypothesis-seed=N` replays a run.
"""

from __future__ import annotations

import contextlib
import csv
import inspect
import io
import json
import uuid
import zipfile
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django import forms as django_forms
from django.db import connection, transaction
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from factcheck.articles.htmltext import HtmlRefused, html_to_document
from factcheck.articles.models import Article, ImportBatch
from factcheck.articles.readers import document_row
from factcheck.articles.rows import EARLIEST_PUBLISHED, LATEST_PUBLISHED, RowError, parse_published_at
from factcheck.articles.services import articles_import_file
from factcheck.factchecks import rows as factcheck_rows
from factcheck.factchecks.models import FactCheck, FactCheckImport
from factcheck.factchecks.ratings import scale_from_numbers
from factcheck.factchecks.readers import LIAR_COLUMNS
from factcheck.factchecks.services import factchecks_import_file
from tests.api.conftest import Desk, desk  # noqa: F401 - the fixture: a desk of claims, clusters and verdicts
from tests.factchecks.test_import import claimreview
from tests.hostile.strategies import (
    PROFILE,
    hostile_date,
    hostile_number,
    hostile_text,
    json_values,
    raw_json_token,
)

pytestmark = pytest.mark.django_db

MAX_TEXT = 5_000  # lowered so that a generated "huge" field crosses it


@pytest.fixture(autouse=True)
def small_limits(settings, tmp_path: Path):  # type: ignore[no-untyped-def]
    settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS = MAX_TEXT
    settings.FACTCHECK_IMPORT_CHUNK_ROWS = 3  # bad rows land in every position of a chunk
    settings.FACTCHECK_UPLOAD_DIR = tmp_path / "uploads"


def file_in(directory: Path, name: str, data: bytes) -> Path:
    path = directory / f"{uuid.uuid4().hex}-{name}"
    path.write_bytes(data)
    return path


def tmp_dir() -> Path:
    path = Path("/tmp") / "hostile-properties"
    path.mkdir(exist_ok=True)
    return path


def assert_read_back() -> None:
    """Everything stored reads back through the ORM and plain psycopg, dates in bounds."""
    for published_at, metadata in Article.objects.values_list("published_at", "metadata"):
        assert published_at is None or EARLIEST_PUBLISHED <= published_at < LATEST_PUBLISHED
        json.dumps(metadata, allow_nan=False)
    with connection.cursor() as cursor:
        cursor.execute("SELECT published_at, metadata::text FROM articles")
        cursor.fetchall()
        cursor.execute("SELECT published_on, rating_value FROM factchecks")
        for published_on, rating_value in cursor.fetchall():
            assert published_on is None or EARLIEST_PUBLISHED.date() <= published_on < LATEST_PUBLISHED.date()
            assert rating_value is None or 1 <= rating_value <= 5


def assert_article_batch(batch: ImportBatch, good_texts: list[str], bad_positions: set[int], where: str = "line") -> None:
    assert batch.status == ImportBatch.Status.DONE, batch.error
    assert batch.rows_stored + batch.rows_duplicate + batch.rows_rejected == batch.rows_read
    assert Article.objects.filter(text__in=good_texts).count() == len(good_texts), "a good row was lost"
    for error in batch.errors:
        assert error["row"] in bad_positions, f"a good row was rejected: {error}"
        assert str(error["where"]).startswith(where) and error["reason"]
    assert_read_back()


# --- Dates and numbers, field by field ------------------------------------------------------------


@PROFILE
@given(raw=hostile_date)
def test_a_date_is_refused_with_a_reason_or_bounded_and_read_back(raw: str) -> None:
    try:
        parsed = parse_published_at(raw)
    except RowError as refused:
        assert str(refused)
        return
    if parsed is None:
        return
    assert EARLIEST_PUBLISHED <= parsed < LATEST_PUBLISHED
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::timestamptz", [parsed])
        assert cursor.fetchone()[0] == parsed


@PROFILE
@given(raw=st.one_of(hostile_date, hostile_number))
def test_a_factcheck_date_is_refused_or_bounded(raw: object) -> None:
    try:
        day = factcheck_rows._date(raw)
    except RowError:
        return
    assert day is None or (isinstance(day, date) and EARLIEST_PUBLISHED.date() <= day < LATEST_PUBLISHED.date())


@PROFILE
@given(value=hostile_number, best=hostile_number, worst=hostile_number)
def test_a_rating_is_on_the_scale_or_none(value: object, best: object, worst: object) -> None:
    assert scale_from_numbers(value, best, worst) in {None, 1, 2, 3, 4, 5}


# --- Article imports: CSV, JSON lines, ZIP, HTML -------------------------------------------------

article_fields = st.fixed_dictionaries(
    {},
    optional={
        "text": st.one_of(hostile_text, hostile_number.map(str)),
        "title": hostile_text,
        "url": st.one_of(hostile_text, st.just("https://example.org/" + "a" * 3000)),
        "author": hostile_text,
        "outlet": hostile_text,
        "published_at": hostile_date,
        "extra": st.one_of(hostile_text, hostile_number.map(str)),
    },
)


def interleave(draw: st.DrawFn, bad: st.SearchStrategy[Any]) -> tuple[list[tuple[bool, Any]], list[str]]:
    """Good and hostile records in a drawn order; the good ones' texts are new to the database."""
    tag = uuid.uuid4().hex
    good = [f"Good article {n} of {tag}: rents rose 4% in May." for n in range(draw(st.integers(1, 4)))]
    bad_rows = draw(st.lists(bad, min_size=1, max_size=5))
    records = [(True, text) for text in good] + [(False, row) for row in bad_rows]
    return draw(st.permutations(records)), good


@PROFILE
@given(data=st.data())
def test_csv_hostile_rows_cost_no_good_row(data: st.DataObject) -> None:
    records, good = interleave(data.draw, article_fields)
    header = ["text", "title", "url", "author", "outlet", "published_at", "extra"]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    bad_positions = set()
    for number, (is_good, row) in enumerate(records, start=1):
        if is_good:
            writer.writerow([row, "", "", "", "", "2024-05-31", ""])
        else:
            bad_positions.add(number)
            writer.writerow([str(row.get(name, "")) for name in header])
    path = file_in(tmp_dir(), "hostile.csv", buffer.getvalue().encode("utf-8", errors="surrogatepass"))
    batch = articles_import_file(path=path)
    # A quoted field may hold a bare \r or a line break: a record is one row however many lines.
    assert batch.rows_read == len(records)
    assert_article_batch(batch, good, bad_positions)


hostile_jsonl_line = st.one_of(
    st.builds(
        lambda text, date_, extra: f'{{"text": {text}, "published_at": {date_}, "extra": {extra}}}',
        raw_json_token, raw_json_token, raw_json_token,
    ),
    st.builds(lambda token: f'{{"text": "A row with a hostile field.", "extra": {token}}}', raw_json_token),
    raw_json_token.filter(lambda token: token.strip() != ""),
    st.binary(min_size=1, max_size=40).map(lambda raw: "{" + raw.decode("latin-1")),
    article_fields.map(lambda fields: json.dumps(fields, ensure_ascii=False)),
)


@PROFILE
@given(data=st.data())
def test_jsonl_hostile_lines_cost_no_good_row(data: st.DataObject) -> None:
    records, good = interleave(data.draw, hostile_jsonl_line.map(lambda line: line.replace("\n", " ").replace("\r", " ")))
    lines, bad_positions = [], set()
    for number, (is_good, row) in enumerate(records, start=1):
        lines.append(json.dumps({"text": row, "published_at": "2024-05-31T10:00:00+02:00"}) if is_good else row)
        if not is_good:
            bad_positions.add(number)
    path = file_in(tmp_dir(), "hostile.jsonl", ("\n".join(lines) + "\n").encode("utf-8", errors="surrogatepass"))
    batch = articles_import_file(path=path)
    assert batch.rows_read == len(records)
    assert_article_batch(batch, good, bad_positions)


html_documents = st.one_of(
    st.builds(
        lambda date_, title, charset: f'<html><head><meta charset="{charset}"><title>{title}</title>'
        f'<meta property="article:published_time" content="{date_}"></head><body><p>Some text.</p></body></html>',
        hostile_date, hostile_text, st.sampled_from(["utf-8", "utf-7", "x-unknown", "utf-16", "latin-1", "", "\x00"]),
    ),
    st.integers(min_value=100, max_value=20_000).map(lambda n: "<div>" * n + "deep" + "</div>" * n),
    hostile_text.map(lambda text: f"<html><body><article>{text}</article></body></html>"),
    hostile_text,
)


@PROFILE
@given(document=html_documents)
def test_html_is_a_document_or_a_refusal(document: str) -> None:
    with contextlib.suppress(HtmlRefused):
        html_to_document(document)
    row = document_row(document.encode("utf-8", errors="surrogatepass"), name="page.html")
    assert (row.fields is None) != (row.error == "")


member_names = st.sampled_from(["a.txt", "b.md", "c.html", "../up.txt", "/abs.txt", "C:evil.txt", "x.exe", "noext", "dir/ü.html"])
zip_member = st.tuples(
    st.one_of(member_names, hostile_text.map(lambda t: t[:60] + ".html")),
    st.one_of(
        html_documents.map(lambda d: d.encode("utf-8", errors="surrogatepass")), st.binary(max_size=200),
        st.just(b"\xff\xfe" + "utf16".encode("utf-16-le")),
    ),
)


@PROFILE
@given(data=st.data())
def test_zip_hostile_members_cost_no_good_member(data: st.DataObject) -> None:
    records, good = interleave(data.draw, zip_member)
    buffer = io.BytesIO()
    bad_names: set[str] = set()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number, (is_good, row) in enumerate(records, start=1):
            if is_good:
                archive.writestr(f"good/{number}.txt", row)
            else:
                name, content = row
                name = name.replace("\x00", "") or "empty"
                bad_names.add(f"bad-{number}-{name}")
                try:
                    archive.writestr(f"bad-{number}-{name}", content)
                except (UnicodeEncodeError, ValueError):
                    bad_names.discard(f"bad-{number}-{name}")
    path = file_in(tmp_dir(), "hostile.zip", buffer.getvalue())
    batch = articles_import_file(path=path)
    assert batch.status == ImportBatch.Status.DONE, batch.error
    assert Article.objects.filter(text__in=good).count() == len(good), "a good member was lost"
    for error in batch.errors:
        assert str(error["where"]) in bad_names and error["reason"]
    assert_read_back()


# --- Fact-check imports: ClaimReview (document and lines), Snopes, LIAR --------------------------

rating = st.fixed_dictionaries(
    {}, optional={"ratingValue": hostile_number, "bestRating": hostile_number, "worstRating": hostile_number, "alternateName": hostile_text}
)
claimreview_overrides = st.fixed_dictionaries(
    {},
    optional={
        "datePublished": hostile_date, "claimReviewed": hostile_text, "headline": hostile_text, "reviewBody": hostile_text,
        "reviewRating": st.one_of(rating, json_values), "author": st.one_of(json_values, hostile_text), "itemReviewed": json_values,
        "url": st.one_of(hostile_text, st.just("https://checks.example.org/review/same")), "@id": hostile_text,
    },
)


def hostile_claimreview(draw: st.DrawFn, n: int) -> str:
    """A ClaimReview record as JSON text, with hostile fields or a raw hostile token inside."""
    if draw(st.booleans()):
        return json.dumps(claimreview(n, **draw(claimreview_overrides)), ensure_ascii=False)
    token = draw(raw_json_token)
    return json.dumps(claimreview(n, headline="__TOKEN__")).replace('"__TOKEN__"', token)


def good_claimreviews(draw: st.DrawFn) -> list[dict[str, Any]]:
    tag = uuid.uuid4().hex
    return [claimreview(n, url=f"https://checks.example.org/{tag}/{n}") for n in range(draw(st.integers(1, 3)))]


def assert_factcheck_import(batch: FactCheckImport, good_ids: list[str], bad_positions: set[int], where: str = "line") -> None:
    assert batch.status == FactCheckImport.Status.DONE, batch.error
    assert batch.rows_created + batch.rows_updated + batch.rows_unchanged + batch.rows_rejected == batch.rows_read
    assert FactCheck.objects.filter(external_id__in=good_ids).count() == len(good_ids), "a good record was lost"
    for error in batch.errors:
        assert error["row"] in bad_positions, f"a good record was rejected: {error}"
        assert str(error["where"]).startswith(where) and error["reason"]
    assert_read_back()


@PROFILE
@given(data=st.data(), as_lines=st.booleans())
def test_claimreview_hostile_records_cost_no_good_record(data: st.DataObject, as_lines: bool) -> None:
    good = good_claimreviews(data.draw)
    bad = [hostile_claimreview(data.draw, 1000 + n) for n in range(data.draw(st.integers(1, 4)))]
    records = data.draw(st.permutations([(True, json.dumps(item)) for item in good] + [(False, text) for text in bad]))
    bad_positions = {number for number, (is_good, _) in enumerate(records, start=1) if not is_good}
    if as_lines:
        # The layout is told from the first line: a good record goes first, as a desk's would.
        records = sorted(records, key=lambda record: not record[0])
        bad_positions = {number for number, (is_good, _) in enumerate(records, start=1) if not is_good}
        text = "\n".join(line.replace("\n", " ") for _, line in records) + "\n"
    else:
        text = "[\n" + ",\n".join(item for _, item in records) + "\n]\n"
    path = file_in(tmp_dir(), "reviews.jsonl" if as_lines else "reviews.json", text.encode("utf-8", errors="surrogatepass"))
    batch = factchecks_import_file(path=path)
    assert batch.rows_read == len(records)
    assert_factcheck_import(batch, [item["url"] for item in good], bad_positions)


snopes_fields = st.fixed_dictionaries(
    {"vclaim_id": st.one_of(hostile_text, st.just("vclaim-same")), "vclaim": hostile_text},
    optional={"title": hostile_text, "subtitle": hostile_text, "date": st.one_of(hostile_date, hostile_number), "author": json_values},
)


@PROFILE
@given(data=st.data())
def test_snopes_and_liar_hostile_records_cost_no_good_record(data: st.DataObject) -> None:
    tag = uuid.uuid4().hex
    good_snopes = [
        {"vclaim_id": f"vclaim-{tag}-{n}", "vclaim": f"Claim {n} of {tag}.", "date": "26 May 2015"} for n in range(data.draw(st.integers(1, 3)))
    ]
    bad_snopes = data.draw(st.lists(snopes_fields, min_size=1, max_size=4))
    others = [json.dumps(r) for r in good_snopes[1:]] + [json.dumps(r, ensure_ascii=False) for r in bad_snopes]
    records = [json.dumps(good_snopes[0])] + data.draw(st.permutations(others))
    bad_positions = {number for number, line in enumerate(records, start=1) if json.loads(line).get("vclaim_id", "").startswith(f"vclaim-{tag}") is False}
    path = file_in(tmp_dir(), "snopes.jsonl", ("\n".join(records) + "\n").encode("utf-8", errors="surrogatepass"))
    assert_factcheck_import(factchecks_import_file(path=path), [r["vclaim_id"] for r in good_snopes], bad_positions)

    digits = tag[:6].translate(str.maketrans("abcdef", "123456"))
    good_liar = [f"{n}{digits}.json\tfalse\tStatement {n} of {tag}.\tx\tsomeone\t\t\t\t0\t0\t0\t0\t0\t" for n in range(1, 3)]
    one_line = hostile_text.map(lambda t: t.replace("\t", " ").replace("\n", " ").replace("\r", " "))
    bad_liar = data.draw(st.lists(st.lists(one_line, min_size=10, max_size=16), min_size=1, max_size=4))
    lines = [good_liar[0]] + data.draw(st.permutations(good_liar[1:] + ["\t".join(fields) for fields in bad_liar]))
    lines = [line for line in lines if line.strip()]
    bad_positions = {number for number, line in enumerate(lines, start=1) if line not in good_liar}
    path = file_in(tmp_dir(), "liar.tsv", ("\n".join(lines) + "\n").encode("utf-8", errors="surrogatepass"))
    assert_factcheck_import(factchecks_import_file(path=path), [line.split("\t")[0] for line in good_liar], bad_positions)
    assert len(LIAR_COLUMNS) == 14


# --- Forms ---------------------------------------------------------------------------------------


def project_forms() -> list[type[django_forms.BaseForm]]:
    """Every form of the project that takes its data alone (the others are covered by their views)."""
    from factcheck.accounts import forms as account_forms  # noqa: F401 - imported so its forms are subclasses
    from factcheck.api import filtering  # noqa: F401
    from factcheck.articles import forms as article_forms  # noqa: F401
    from factcheck.claims.queue import filters, forms  # noqa: F401
    from factcheck.claims.ranking import forms as ranking_forms  # noqa: F401
    from factcheck.claims.workflow import forms as workflow_forms  # noqa: F401
    from factcheck.factchecks import forms as factcheck_forms  # noqa: F401
    from factcheck.publishing import forms as publishing_forms  # noqa: F401
    from factcheck.reports import forms as report_forms  # noqa: F401
    from factcheck.sources import forms as source_forms  # noqa: F401

    found: list[type[django_forms.BaseForm]] = []
    stack: list[type[Any]] = [django_forms.Form, django_forms.ModelForm]
    while stack:
        for form in stack.pop().__subclasses__():
            stack.append(form)
            if form.__module__.startswith("factcheck.") and form not in found:
                found.append(form)
    return found


def form_argument(name: str) -> Any:
    """What a view hands a form's keyword-only argument: the organisation a settings form
    edits; a list of choices otherwise."""
    if name == "organisation":
        from factcheck.publishing.selectors import organisation_current

        return organisation_current()
    return []


def form_with(form_class: type[django_forms.BaseForm], data: dict[str, Any]) -> django_forms.BaseForm | None:
    parameters = inspect.signature(form_class.__init__).parameters
    required = [name for name, p in parameters.items() if p.kind == p.KEYWORD_ONLY and p.default is p.empty]
    if required:
        return form_class(data=data, **{name: form_argument(name) for name in required})  # type: ignore[call-arg]
    if "request" in parameters:
        return None  # the login forms: their view test posts hostile values through the throttle
    return form_class(data=data)


def test_the_form_list_is_the_projects() -> None:
    names = {form.__name__ for form in project_forms()}
    assert {"PasteForm", "QueueFilterForm", "ReportForm", "FeedForm", "VerdictForm", "EvidenceForm", "ClusterFilterForm", "OrganisationForm"} <= names


@PROFILE
@given(data=st.data())
def test_every_form_validates_hostile_values_without_raising(data: st.DataObject) -> None:
    for form_class in project_forms():
        fields = form_class.base_fields
        values = data.draw(st.fixed_dictionaries({name: st.one_of(hostile_text, hostile_date, hostile_number.map(str)) for name in fields}))
        form = form_with(form_class, values)
        if form is None:
            continue
        with transaction.atomic():
            form.is_valid()  # raises nothing but what a form's own checks turn into errors
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")  # nor leaves the transaction broken by a failed query


# --- Pages and the API: query parameters and posted forms ------------------------------------------

QUERY_KEYS = [
    "status", "type", "speaker", "outlet", "article", "article_title", "meta", "score_min", "score_max", "assignee", "date_from",
    "date_to", "has_number", "checked_before", "tag", "run", "q", "sort", "view", "page", "limit", "cursor", "ordering", "min_size",
    "claim", "since", "bom", "rating", "updated_after", "search", "published_from", "published_to", "x",
]
GET_PATHS = [
    "/claims/", "/api/v1/claims/", "/api/v1/clusters/", "/api/v1/verdicts/", "/exports/claims.csv", "/exports/report/",
    "/factchecks/feed.jsonld", "/runs/", "/library/", "/imports/",
]
query_values = st.one_of(hostile_text, hostile_date, hostile_number.map(str)).map(lambda v: v.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))


@pytest.fixture
def signed_in(admin_user, desk: Desk) -> Client:  # type: ignore[no-untyped-def]  # noqa: F811
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    return client


@PROFILE
@given(params=st.dictionaries(st.sampled_from(QUERY_KEYS), st.one_of(query_values, st.lists(query_values, max_size=3)), max_size=6))
def test_pages_and_the_api_answer_hostile_query_parameters_without_a_server_error(signed_in: Client, params: dict[str, Any]) -> None:
    for path in GET_PATHS:
        response = signed_in.get(path, params)
        assert response.status_code < 500, (path, params, response.status_code)
    assert Client(raise_request_exception=False).get("/api/v1/claims/", params).status_code < 500


@PROFILE
@given(fields=article_fields)
def test_a_pasted_article_with_hostile_fields_is_stored_or_refused_never_a_server_error(signed_in: Client, fields: dict[str, Any]) -> None:
    posted = {name: value.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for name, value in fields.items()}
    response = signed_in.post("/imports/paste/", posted)
    assert response.status_code < 500
    assert_read_back()


@settings(PROFILE, max_examples=min(PROFILE.max_examples, 5))  # each attempt hashes a password
@given(username=query_values, password=query_values)
def test_login_with_hostile_values_is_never_a_server_error(username: str, password: str) -> None:
    response = Client(raise_request_exception=False).post("/login/", {"username": username, "password": password})
    assert response.status_code in {200, 429}
