"""Importing fact-checks into the library: every layout, good and malformed rows, re-import,
the command line and the admin upload page."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from factcheck.articles.readers import ImportFileError, ReadPosition
from factcheck.factchecks import readers
from factcheck.factchecks.models import FactCheck, FactCheckImport
from factcheck.factchecks.readers import detect_layout, read_json_document
from factcheck.factchecks.services import QUEUE_UNAVAILABLE, factchecks_match_new
from factcheck.factchecks.tasks import factcheck_import_run
from factcheck.runs.services import runs_reap
from tests.conftest import PERSONA_PASSWORD, SHARED_DATA
from tests.reports.helpers import claim_in_article, publish
from tests.web.test_run_faults import broker_down

Layout = FactCheckImport.Layout

LIAR_ROWS = [
    "2635.json\tfalse\tSays the Annies List political group supports third-trimester abortions on demand.\tabortion\tdwayne-bohac"
    "\tState representative\tTexas\trepublican\t0\t1\t0\t0\t0\ta mailer",
    "10540.json\thalf-true\tWhen did the decline of coal start? It started when natural gas took off.\tenergy,history\tscott-surovell"
    "\tState delegate\tVirginia\tdemocrat\t0\t0\t1\t1\t0\ta floor speech.",
    "11.json\tpants-fire\tThe moon landing was staged in a studio.\tspace\tsomeone\t\t\tnone\t0\t0\t0\t0\t1\t",
    "12.json\tbarely-true\tOnly 13 columns here\tx\ty\tz\tw\tv\t0\t0\t0\t0\t0",
    "13.json\tsort-of\tAn unknown label.\tx\ty\t\t\t\t0\t0\t0\t0\t0\t",
    "14.json\ttrue\t   \tx\ty\t\t\t\t0\t0\t0\t0\t0\t",
    "15.json\tmostly-true\tICE detained nearly 1,500 people in May.\timmigration\tjane-doe\tMayor\tMassachusetts\tdemocrat\t0\t0\t0\t0\t0\ta speech",
]


def run(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_factchecks", *args, stdout=out, stderr=err)
    assert "rows/s" in err.getvalue() and "100%" in err.getvalue()
    return out.getvalue()


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def claimreview(n: int, **overrides: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "url": f"https://checks.example.org/review/{n}",
        "claimReviewed": f"Claim number {n} about 1,500 people.",
        "headline": f"Review {n}",
        "datePublished": "2024-05-31T10:00:00+00:00",
        "author": {"@type": "Organization", "name": "Example Checks"},
        "reviewRating": {"@type": "Rating", "ratingValue": 2, "bestRating": 5, "worstRating": 1, "alternateName": "Mostly false"},
        "itemReviewed": {"@type": "Claim", "author": {"@type": "Person", "name": "A. Speaker"}},
    }
    document.update(overrides)
    return document


# --- Layout detection --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "layout"),
    [
        (b'[{"@type": "ClaimReview"}]', Layout.CLAIMREVIEW),
        (b'{\n  "@context": "https://schema.org",\n  "@graph": [', Layout.CLAIMREVIEW),
        (b'{"@context": "https://schema.org", "@type": "ItemList", "itemListElement": []}', Layout.CLAIMREVIEW),
        (b'{"@type": "ClaimReview", "claimReviewed": "x"}\n{"@type": "ClaimReview"}\n', Layout.CLAIMREVIEW_LINES),
        (b'\xef\xbb\xbf{"vclaim_id": "v1", "vclaim": "x", "title": "t"}\n', Layout.SNOPES),
        (LIAR_ROWS[0].encode() + b"\n", Layout.LIAR),
    ],
)
def test_layout_is_read_from_the_content(head: bytes, layout: str) -> None:
    assert detect_layout(head) == layout


@pytest.mark.parametrize(
    ("head", "message"),
    [
        (b"title,text\nA,B\n", "Unknown layout"),
        (b'{"text": "an article, not a fact-check"}\n', "keys: text"),
        (b"   \n", "empty"),
        ("[]".encode("utf-16"), "UTF-16"),
    ],
)
def test_unknown_layouts_are_refused_clearly(head: bytes, message: str) -> None:
    with pytest.raises(ImportFileError, match=message):
        detect_layout(head)


def test_json_document_is_streamed_across_read_blocks_with_line_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tiny blocks: every item, string and number is cut somewhere between two reads.
    monkeypatch.setattr(readers, "READ_BYTES", 7)
    items = [claimreview(1), {"@type": "ClaimReview", "claimReviewed": "Ünïcode “quotes” 1,500", "ratingValue": 12345}, claimreview(3)]
    graph = ",\n".join(json.dumps(item, ensure_ascii=False) for item in items)
    text = '{\n"@context": "https://schema.org",\n"name": {"nested": [1, 2]},\n"@graph": [\n' + graph + "\n]}\n"
    rows = list(read_json_document(io.BytesIO(text.encode()), ReadPosition(), item_limit=10_000))
    assert [row.fields for row in rows] == items
    assert [row.where for row in rows] == ["line 5", "line 6", "line 7"]


# --- The command line, per layout ------------------------------------------------------


@pytest.mark.django_db
def test_liar_rows_are_stored_the_bad_ones_reported_and_a_reimport_changes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "liar.tsv", LIAR_ROWS)
    out = run(str(path))
    assert "(LIAR TSV (PolitiFact)) done: 7 rows read, 4 new, 0 updated, 0 unchanged, 3 rejected." in out
    assert "row 4 (line 4): 13 tab-separated fields where the LIAR layout has 14." in out
    assert "row 5 (line 5): Unknown LIAR rating 'sort-of'" in out
    assert "row 6 (line 6): The fact-check has no claim." in out
    stored = {fc.external_id: fc for fc in FactCheck.objects.all()}
    assert set(stored) == {"2635.json", "10540.json", "11.json", "15.json"}
    bohac = stored["2635.json"]
    assert (bohac.publisher, bohac.rating_text, bohac.rating_value, bohac.speaker, bohac.source) == (
        "PolitiFact", "false", 1, "Dwayne Bohac", FactCheck.Source.IMPORTED
    )
    assert bohac.metadata == {"speaker_job": "State representative", "state": "Texas", "party": "republican", "context": "a mailer", "subjects": ["abortion"]}
    assert [stored[key].rating_value for key in ("10540.json", "11.json", "15.json")] == [3, 1, 4]
    before = list(FactCheck.objects.order_by("id").values())

    out = run(str(path))
    assert "7 rows read, 0 new, 0 updated, 4 unchanged, 3 rejected." in out
    assert list(FactCheck.objects.order_by("id").values()) == before

    changed = LIAR_ROWS[:2] + [LIAR_ROWS[2].replace("pants-fire", "false")]
    out = run(str(write(tmp_path / "liar2.tsv", changed)))
    assert "3 rows read, 0 new, 1 updated, 2 unchanged, 0 rejected." in out
    assert FactCheck.objects.get(external_id="11.json").rating_text == "false" and FactCheck.objects.count() == 4


@pytest.mark.django_db
def test_snopes_rows_keep_their_dates_and_report_broken_lines(tmp_path: Path) -> None:
    good = {
        "title": "Anaconda", "subtitle": "Big snake.", "author": "Dan Evon", "date": "6 March 2021",
        "vclaim_id": "vclaim-sno-anaconda", "vclaim": "A video shows a 10-meter anaconda.",
    }
    junk_date = {**good, "vclaim_id": "vclaim-sno-junk", "vclaim": "Coyotes ate the mail.", "date": "The circulating text about a coyote"}
    lines = [json.dumps(good), "{not json", json.dumps({**good, "vclaim_id": "vclaim-sno-empty", "vclaim": ""}), "", json.dumps(junk_date), "[1, 2]"]
    out = run(str(write(tmp_path / "vclaims.jsonl", lines)), "--publisher", "Snopes.com")
    assert "(Snopes (CheckThat! vclaims)) done: 5 rows read, 2 new, 0 updated, 0 unchanged, 3 rejected." in out
    assert "row 2 (line 2): Not valid JSON" in out and "row 3 (line 3): The fact-check has no claim." in out
    assert "row 5 (line 6): Expected a JSON object, got list." in out
    anaconda = FactCheck.objects.get(external_id="vclaim-sno-anaconda")
    assert (anaconda.publisher, anaconda.title, anaconda.summary, str(anaconda.published_on), anaconda.rating_value) == (
        "Snopes.com", "Anaconda", "Big snake.", "2021-03-06", None
    )
    junk = FactCheck.objects.get(external_id="vclaim-sno-junk")
    assert junk.published_on is None and junk.metadata["date_unparsed"] == "The circulating text about a coyote"
    assert "0 new, 0 updated, 2 unchanged, 3 rejected." in run(str(tmp_path / "vclaims.jsonl"), "--publisher", "Snopes.com")


@pytest.mark.django_db
def test_claimreview_array_rows_are_checked_one_by_one(tmp_path: Path) -> None:
    items = [
        claimreview(1),
        claimreview(2, reviewRating={"@type": "Rating", "alternateName": "Pants on Fire!"}),
        {"@type": "ClaimReview", "url": "https://checks.example.org/review/3", "author": {"name": "Example Checks"}},
        {"@type": "NewsArticle", "url": "https://example.org/a"},
        claimreview(5, url="not a url"),
        claimreview(6, reviewRating={"@type": "Rating", "alternateName": "Satire"}, author=None, publisher={"@type": "Organization", "name": "Other Desk"}),
    ]
    path = tmp_path / "reviews.json"
    path.write_text(json.dumps(items, indent=2))
    starts = [number for number, line in enumerate(path.read_text().splitlines(), start=1) if line == "  {"]
    out = run(str(path))
    assert "(ClaimReview JSON-LD) done: 6 rows read, 3 new, 0 updated, 0 unchanged, 3 rejected." in out
    lines = {line.split(":")[0].strip(): line for line in out.splitlines() if line.startswith("  row")}
    assert "The fact-check has no claim." in lines[f"row 3 (line {starts[2]})"]
    assert "Not a ClaimReview (@type 'NewsArticle')" in lines[f"row 4 (line {starts[3]})"]
    assert "Bad url 'not a url'" in out
    first = FactCheck.objects.get(external_id="https://checks.example.org/review/1")
    assert (first.publisher, first.url, first.rating_text, first.rating_value, first.speaker, str(first.published_on), first.title) == (
        "Example Checks", "https://checks.example.org/review/1", "Mostly false", 2, "A. Speaker", "2024-05-31", "Review 1"
    )
    assert FactCheck.objects.get(external_id__endswith="/2").rating_value == 1
    satire = FactCheck.objects.get(external_id__endswith="/6")
    assert (satire.publisher, satire.rating_text, satire.rating_value) == ("Other Desk", "Satire", None)
    assert "0 new, 0 updated, 3 unchanged, 3 rejected." in run(str(path))


@pytest.mark.django_db
def test_claimreview_lines_item_lists_single_documents_and_broken_arrays(tmp_path: Path) -> None:
    lines = write(tmp_path / "a.jsonl", [json.dumps(claimreview(1)), json.dumps(claimreview(2, claimReviewed="")), json.dumps(claimreview(3))])
    assert "(ClaimReview JSON lines) done: 3 rows read, 2 new, 0 updated, 0 unchanged, 1 rejected." in run(str(lines))
    item_list = {"@context": "https://schema.org", "@type": "ItemList", "itemListElement": [{"@type": "ListItem", "position": 1, "item": claimreview(4)}]}
    (tmp_path / "b.json").write_text(json.dumps(item_list))
    (tmp_path / "c.json").write_text(json.dumps(claimreview(5), indent=1))
    out = run(str(tmp_path / "b.json"), str(tmp_path / "c.json"))
    assert out.count("1 rows read, 1 new") == 2
    broken = tmp_path / "d.json"
    broken.write_text("[\n" + json.dumps(claimreview(6)) + ",\n" + '{"@type": "ClaimReview", "url": oops}' + ",\n" + json.dumps(claimreview(7)) + "\n]")
    out = run(str(broken))
    assert "2 rows read, 1 new, 0 updated, 0 unchanged, 1 rejected." in out
    assert "row 2 (line 3): Not valid JSON at line 3" in out and "The rest of the file was not read." in out
    truncated = tmp_path / "e.json"
    truncated.write_text("[\n" + json.dumps(claimreview(8)) + ",\n")
    assert "The JSON array does not end" in run(str(truncated))
    assert set(FactCheck.objects.values_list("external_id", flat=True)) == {f"https://checks.example.org/review/{n}" for n in (1, 3, 4, 5, 6, 8)}


@pytest.mark.django_db
def test_our_own_feed_imports_as_another_desk_would(reviewer, editor, settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_ORG_NAME = "Desk A"
    settings.FACTCHECK_PUBLIC_BASE_URL = "https://desk-a.example.org"
    publish(claim_in_article(sentence="ICE detained nearly 1,500 people in May."), author=reviewer, approver=editor)
    client = Client()
    assert client.login(username=editor.username, password=PERSONA_PASSWORD)
    feed = b"".join(client.get(reverse("publishing:feed")).streaming_content)  # type: ignore[attr-defined]
    (tmp_path / "feed.jsonld").write_bytes(feed)
    assert "(ClaimReview JSON-LD) done: 1 rows read, 1 new" in run(str(tmp_path / "feed.jsonld"))
    imported = FactCheck.objects.get(source=FactCheck.Source.IMPORTED)
    assert (imported.publisher, imported.rating_text, imported.rating_value, imported.claim) == (
        "Desk A", "Mostly false", 2, "ICE detained nearly 1,500 people in May."
    )
    assert imported.url.startswith("https://desk-a.example.org/factchecks/")


@pytest.mark.django_db
def test_unknown_layouts_and_missing_files_are_command_errors(tmp_path: Path) -> None:
    csv = write(tmp_path / "articles.csv", ["title,text", "A,B"])
    with pytest.raises(CommandError, match="Unknown layout"):
        run(str(csv))
    with pytest.raises(CommandError, match="no such file"):
        run(str(tmp_path / "missing.tsv"))
    assert not FactCheckImport.objects.exists()


@pytest.mark.django_db
@pytest.mark.skipif(not (SHARED_DATA / "liar").is_dir(), reason="../shared/data/liar is not here")
def test_the_whole_liar_valid_split_imports() -> None:
    out = run(str(SHARED_DATA / "liar" / "valid.tsv"))
    assert "1284 rows read, 1284 new, 0 updated, 0 unchanged, 0 rejected." in out


# --- The admin upload page --------------------------------------------------------------


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def upload(client: Client, content: bytes, name: str = "checks.tsv", **data: str) -> Any:
    return client.post(reverse("factchecks:upload"), {"file": SimpleUploadedFile(name, content), **data})


@pytest.mark.django_db
def test_upload_page_imports_small_files_at_once_and_shows_the_summary(admin_user) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(admin_user)
    assert client.get(reverse("factchecks:import")).status_code == 200
    response = upload(client, "\n".join(LIAR_ROWS).encode(), publisher="PolitiFact.com")
    batch = FactCheckImport.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("factchecks:import_detail", args=[batch.pk])
    assert (batch.status, batch.layout, batch.rows_created, batch.rows_rejected, batch.created_by) == ("done", Layout.LIAR, 4, 3, admin_user)
    assert set(FactCheck.objects.values_list("publisher", flat=True)) == {"PolitiFact.com"}
    page = client.get(response["Location"]).content.decode()
    assert "7 rows read: 4 new, 0 updated, 0 unchanged, 3 rejected." in page and "13 tab-separated fields" in page
    # Imported, not yet matched against the queue (the matching message is still to come):
    # the page says so and keeps polling until it is done.
    partial = client.get(response["Location"], headers={"HX-Request": "true"}).content.decode()
    assert partial.startswith('<div id="import-progress"') and "hx-get" in partial
    assert "being matched against them (4 still to match)" in partial
    factchecks_match_new(factcheck_ids=list(FactCheck.objects.values_list("id", flat=True)))
    partial = client.get(response["Location"], headers={"HX-Request": "true"}).content.decode()
    assert "have been matched against them" in partial and "being matched" not in partial
    assert "hx-get" not in partial  # finished and matched: no more polling


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_UPLOAD_DIR = tmp_path / "uploads"
    return settings.FACTCHECK_UPLOAD_DIR


@pytest.mark.django_db
def test_upload_page_queues_large_files_for_the_worker(admin_user, settings, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_IMPORT_INLINE_MAX_BYTES = 10
    client = logged_in(admin_user)
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        upload(client, "\n".join(LIAR_ROWS[:2]).encode())
    batch = FactCheckImport.objects.get()
    assert (batch.status, batch.error) == (FactCheckImport.Status.QUEUED, QUEUE_UNAVAILABLE) and batch.upload_name
    assert runs_reap().factcheck_imports_sent == [batch.pk]  # the broker is back: the reaper sends it
    batch.refresh_from_db()
    assert (batch.status, batch.error) == (FactCheckImport.Status.QUEUED, "")
    assert 'hx-trigger="every 2s"' in client.get(reverse("factchecks:import_detail", args=[batch.pk])).content.decode()
    factcheck_import_run(batch.pk)
    factcheck_import_run(batch.pk)  # a second delivery finds it done
    batch.refresh_from_db()
    assert (batch.status, batch.rows_created, batch.upload_name) == ("done", 2, "")
    assert FactCheck.objects.count() == 2


@pytest.mark.django_db
def test_upload_page_refuses_unknown_layouts_non_admins_and_wrong_methods(admin_user, editor, outsider) -> None:  # type: ignore[no-untyped-def]
    response = upload(logged_in(admin_user), b"title,text\nA,B\n", name="a.csv")
    assert response.status_code == 400 and "Unknown layout" in response.content.decode()
    assert upload(logged_in(editor), b"x").status_code == 403
    assert upload(logged_in(outsider), b"x").status_code == 403
    assert logged_in(admin_user).get(reverse("factchecks:upload")).status_code == 405
    assert logged_in(editor).get(reverse("factchecks:import")).status_code == 403
    assert not FactCheckImport.objects.exists()
