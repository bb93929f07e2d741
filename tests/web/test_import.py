"""Bulk import: formats, malformed files, duplicates, crashes and resumes (services and readers)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from factcheck.articles import services
from factcheck.articles.htmltext import MAX_DEPTH, MAX_ELEMENTS, HtmlRefused, html_check, html_to_document
from factcheck.articles.models import Article, ImportBatch
from factcheck.articles.readers import ImportFileError
from factcheck.articles.rows import RowError, parse_published_at
from factcheck.articles.services import articles_import_file, import_batch_process, import_text
from factcheck.runs.models import PipelineRun, PipelineRunArticle
from pipeline.text import content_hash

pytestmark = pytest.mark.django_db

HEADER = ["title", "text", "url", "outlet", "author", "published_at"]


@pytest.fixture(autouse=True)
def import_settings(settings, tmp_path: Path):  # type: ignore[no-untyped-def]
    settings.FACTCHECK_UPLOAD_DIR = tmp_path / "uploads"
    settings.FACTCHECK_IMPORT_CHUNK_ROWS = 10
    return settings


def write_csv(path: Path, rows: list[list[str]], header: list[str] = HEADER) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def errors_by_row(batch: ImportBatch) -> dict[int, str]:
    return {error["row"]: error["reason"] for error in batch.errors}


def run_articles(batch: ImportBatch) -> set[int]:
    run = PipelineRun.objects.get(import_batch=batch)
    return set(PipelineRunArticle.objects.filter(run=run).values_list("article_id", flat=True))


# --- CSV ----------------------------------------------------------------------------------


def test_csv_rows_are_stored_with_metadata_and_one_pipeline_run(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "news.csv",
        [
            ["Rates rise", "The bank raised rates by 0.5 points.", "https://ex.com/1", "Daily", "Ann Lee", "2024-05-31", "A"],
            ["", "  Unemployment fell to 4%.\r\n  ", "", "", "", "2024-06-01T10:00:00+02:00", "B"],
            ["Feed item", "Exports grew 3% last year.", "", "", "", "Fri, 31 May 2024 14:00:00 GMT", ""],
        ],
        header=[*HEADER, "section"],
    )
    batch = articles_import_file(path=path, default_outlet="Wire")
    assert batch.status == ImportBatch.Status.DONE
    assert (batch.rows_read, batch.rows_stored, batch.rows_duplicate, batch.rows_rejected) == (3, 3, 0, 0)
    first = Article.objects.get(url="https://ex.com/1")
    assert (first.title, first.outlet.name, first.author, first.metadata) == ("Rates rise", "Daily", "Ann Lee", {"section": "A"})
    assert first.published_at == datetime(2024, 5, 31, tzinfo=UTC)
    second = Article.objects.get(text="Unemployment fell to 4%.")
    assert second.outlet.name == "Wire"  # the default outlet fills in for rows that name none
    assert second.content_hash == content_hash("Unemployment fell to 4%.")
    assert second.published_at == datetime(2024, 6, 1, 8, tzinfo=UTC)
    assert Article.objects.get(title="Feed item").published_at == datetime(2024, 5, 31, 14, tzinfo=UTC)
    assert run_articles(batch) == set(Article.objects.values_list("id", flat=True))
    assert batch.file_sha256 and batch.file_size == path.stat().st_size == batch.bytes_read


def test_csv_bad_rows_are_reported_by_row_and_good_rows_kept(import_settings, tmp_path: Path) -> None:
    import_settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS = 100
    path = tmp_path / "mixed.csv"
    with open(path, "wb") as handle:
        handle.write(b"\xef\xbb\xbftext,published_at,url\n")  # a BOM, as spreadsheets write it
        handle.write(b"Good one.,2024-01-01,\n")
        handle.write(b",2024-01-01,\n")  # 2: no text
        handle.write(b"Bad date.,31/12/2024,\n")  # 3
        handle.write(b"Caf\xe9 in Latin-1.,,\n")  # 4: not UTF-8
        handle.write(b'"' + b"x" * 101 + b'",,\n')  # 5: oversize
        handle.write(b"Too,many,fields,here\n")  # 6
        handle.write(b"Bad url.,,not a url\n")  # 7
        handle.write(b"\n")  # a blank line is not a row
        handle.write(b'"Two\nlines.",2024-02-30,\n')  # 8: a quoted newline, and a day that does not exist
        handle.write(b"Good two.,2024-01-02T00:00:00Z,https://ex.com/2\n")  # 9
    batch = articles_import_file(path=path)
    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected, batch.rows_duplicate) == (9, 2, 7, 0)
    reasons = errors_by_row(batch)
    assert set(reasons) == {2, 3, 4, 5, 6, 7, 8}
    assert reasons[2] == "The article has no text."
    assert reasons[3].startswith("Bad date '31/12/2024'")
    assert reasons[4] == "Not valid UTF-8 text."
    assert reasons[5] == "The text has 101 characters; the limit is 100."
    assert reasons[6] == "4 fields where the header has 3."
    assert reasons[7] == "Bad url 'not a url'."
    assert reasons[8].startswith("Bad date")
    assert {e["row"]: e["where"] for e in batch.errors}[8] == "line 10"
    assert set(Article.objects.values_list("text", flat=True)) == {"Good one.", "Good two."}


def test_csv_without_text_column_fails_whole_file(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "cols.csv", [["A title", "body"]], header=["title", "body"])
    batch = articles_import_file(path=path)
    assert batch.status == ImportBatch.Status.FAILED
    assert batch.error == "Missing column: text. Found: title, body."
    assert Article.objects.count() == 0 and not PipelineRun.objects.exists()


@pytest.mark.parametrize("content", [b"", b"\n\n", b"text,title\n"])
def test_empty_csv_fails_with_a_reason(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.csv"
    path.write_bytes(content)
    batch = articles_import_file(path=path)
    assert batch.status == ImportBatch.Status.FAILED
    assert batch.error in {"The file is empty.", "The file holds no articles."}


def test_same_text_is_a_duplicate_and_another_text_under_a_known_url_is_listed(tmp_path: Path) -> None:
    # Issue 31, item 5: a new text under a known url was counted as a duplicate, not listed.
    Article.objects.create(text="Stored before.", content_hash=content_hash("Stored before."), url="https://ex.com/old")
    rows = [
        ["", "Same text.", "", "", "", ""],
        ["", "Same text.", "", "", "", ""],
        ["", "Edited text, same address.", "https://ex.com/old", "", "", ""],
        ["", "Stored before.", "", "", "", ""],
        ["", "New one.", "https://ex.com/new", "", "", ""],
        ["", "New one, edited.", "https://ex.com/new", "", "", ""],
    ]
    batch = articles_import_file(path=write_csv(tmp_path / "dups.csv", rows))
    assert (batch.rows_read, batch.rows_stored, batch.rows_duplicate, batch.rows_rejected) == (6, 2, 2, 2)
    assert Article.objects.count() == 3
    assert Article.objects.get(url="https://ex.com/new").text == "New one."
    stored = Article.objects.get(url="https://ex.com/old")
    assert errors_by_row(batch) == {
        3: f"This url is already stored (article #{stored.pk}) with another text: not imported.",
        6: "Same url as row 5 of this file, with another text: not imported.",
    }
    assert [error["where"] for error in batch.errors] == ["line 4", "line 7"]


def test_reimporting_the_same_file_adds_nothing(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "again.csv", [["", f"Article {i}.", f"https://ex.com/{i}", "Daily", "", ""] for i in range(25)])
    first = articles_import_file(path=path)
    again = articles_import_file(path=path)
    assert again.pk != first.pk
    assert (first.rows_stored, again.rows_stored, again.rows_duplicate) == (25, 0, 25)
    assert Article.objects.count() == 25
    assert PipelineRun.objects.count() == 1  # nothing new, nothing for the pipeline


# --- A crash mid-import -----------------------------------------------------------------------


def test_crash_mid_import_keeps_whole_chunks_and_a_rerun_completes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_csv(tmp_path / "crash.csv", [["", f"Story number {i}.", "", "", "", ""] for i in range(1, 36)])
    real_prepare = services.prepare_article

    def exploding(fields, **kwargs):  # type: ignore[no-untyped-def]
        if fields["text"] == "Story number 25.":
            raise RuntimeError("disk on fire")
        return real_prepare(fields, **kwargs)

    monkeypatch.setattr(services, "prepare_article", exploding)
    with pytest.raises(RuntimeError, match="disk on fire"):
        articles_import_file(path=path)
    batch = ImportBatch.objects.get()
    assert batch.status == ImportBatch.Status.FAILED and "Stopped after row 20" in batch.error
    assert batch.rows_read == 20 and batch.rows_stored == 20
    # Two whole chunks, each article complete; nothing of the chunk in flight.
    stored = list(Article.objects.order_by("id"))
    assert [a.text for a in stored] == [f"Story number {i}." for i in range(1, 21)]
    assert all(a.content_hash == content_hash(a.text) and a.import_batch_id == batch.pk for a in stored)
    assert not PipelineRun.objects.exists()

    monkeypatch.setattr(services, "prepare_article", real_prepare)
    resumed = articles_import_file(path=path)
    assert resumed.pk == batch.pk  # the same batch goes on after its last committed chunk
    assert resumed.status == ImportBatch.Status.DONE and resumed.error == ""
    assert (resumed.rows_read, resumed.rows_stored, resumed.rows_duplicate) == (35, 35, 0)
    assert Article.objects.count() == 35
    assert run_articles(resumed) == set(Article.objects.values_list("id", flat=True))


def test_a_batch_held_by_another_process_is_left_alone(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "held.csv", [["", "Held.", "", "", "", ""]])
    batch = ImportBatch.objects.create(source="held.csv", format="csv", status=ImportBatch.Status.QUEUED)
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", [services.IMPORT_LOCK_KEY + batch.pk])
        assert import_batch_process(batch_id=batch.pk, path=path) is None
        # Released here, not by closing the connection: the server ends a closed session's
        # backend (and frees its locks) a moment after the client has gone on.
        other.execute("SELECT pg_advisory_unlock(%s)", [services.IMPORT_LOCK_KEY + batch.pk])
    assert import_batch_process(batch_id=batch.pk, path=path).status == ImportBatch.Status.DONE  # type: ignore[union-attr]


def test_listed_errors_are_capped_but_all_counted(import_settings, tmp_path: Path) -> None:
    import_settings.FACTCHECK_IMPORT_MAX_LISTED_ERRORS = 3
    batch = articles_import_file(path=write_csv(tmp_path / "bad.csv", [["", "", "", "", "", ""]] * 25))
    assert batch.rows_rejected == 25 and len(batch.errors) == 3
    assert [e["row"] for e in batch.errors] == [1, 2, 3]


# --- JSON Lines ---------------------------------------------------------------------------------


def test_jsonl_rows_and_malformed_lines(tmp_path: Path) -> None:
    path = tmp_path / "feed.jsonl"
    lines = [
        json.dumps({"title": "One", "text": "First text.", "url": "https://ex.com/a", "category": "tech", "tags": ["x"]}).encode(),
        b"",
        b'{"text": "Broken',
        b"[1, 2]",
        '{"text": "Caf\u00e9"}'.encode("latin-1"),
        json.dumps({"text": {"nested": True}}).encode(),
        json.dumps({"text": "Null byte \u0000 inside."}).encode(),
        json.dumps({"text": "Second text.", "published_at": "2024-05-31T12:00:00"}).encode(),
    ]
    path.write_bytes(b"\n".join(lines))  # no newline at the end
    batch = articles_import_file(path=path)
    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected) == (7, 2, 5)
    reasons = errors_by_row(batch)
    assert reasons[2].startswith("Not valid JSON") and reasons[3] == "Expected a JSON object, got list."
    assert reasons[4] == "Not valid UTF-8 text." and reasons[5] == "text must be text, got dict."
    assert reasons[6] == "The row contains NUL characters (binary data?)."
    assert {e["where"] for e in batch.errors} == {"line 3", "line 4", "line 5", "line 6", "line 7"}
    first = Article.objects.get(url="https://ex.com/a")
    assert first.metadata == {"category": "tech", "tags": ["x"]}
    assert Article.objects.get(text="Second text.").published_at == datetime(2024, 5, 31, 12, tzinfo=UTC)  # naive: UTC


def test_jsonl_line_longer_than_the_cap_is_skipped_not_read(import_settings, tmp_path: Path) -> None:
    import_settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS = 20
    path = tmp_path / "long.jsonl"
    huge = json.dumps({"text": "y" * 600_000})
    path.write_text("\n".join([json.dumps({"text": "Short."}), huge, json.dumps({"text": "Also short."})]) + "\n")
    batch = articles_import_file(path=path)
    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected) == (3, 2, 1)
    assert errors_by_row(batch)[2].startswith("Line longer than")


# --- ZIP and single documents --------------------------------------------------------------------

PAGE = """<!doctype html><html><head><title>Site | Rates rise</title><meta charset="utf-8">
<meta name="author" content="Ann Lee"><meta property="article:published_time" content="2024-05-31T08:00:00Z">
<link rel="canonical" href="https://ex.com/rates"><style>p { color: red }</style>
<script>document.write("<p>tracking</p>")</script></head>
<body><header><nav><a href="/">Home</a> <a href="/news">News</a></nav></header>
<main><article><h1>Rates rise again</h1><p>The bank raised rates
   by 0.5&nbsp;points on <b>Thursday</b>.</p><aside>Read more: other stories</aside>
<p>Inflation was 3.2% in April.</p></article></main>
<footer>© Example News</footer></body></html>"""


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_zip_of_text_markdown_and_html(tmp_path: Path) -> None:
    path = tmp_path / "pages.zip"
    path.write_bytes(
        zip_bytes({
            "a/plain.txt": b"Plain text article.\n\nSecond paragraph.",
            "b/note.md": b"# A heading\n\nMarkdown body.",
            "c/page.html": PAGE.encode(),
            "d/latin.txt": "Caf\u00e9".encode("latin-1"),
            "e/report.pdf": b"%PDF-1.4",
            "__MACOSX/a/._plain.txt": b"junk",
            ".hidden.txt": b"junk",
            "f/empty.txt": b"   ",
        })
    )
    batch = articles_import_file(path=path)
    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected) == (6, 3, 3)
    assert {e["where"]: e["reason"] for e in batch.errors} == {
        "d/latin.txt": "Not valid utf-8 text.",
        "e/report.pdf": "Unsupported file type '.pdf': use .txt, .md or .html.",
        "f/empty.txt": "The article has no text.",
    }
    page = Article.objects.get(url="https://ex.com/rates")
    assert page.text == "Rates rise again\n\nThe bank raised rates by 0.5 points on Thursday.\n\nInflation was 3.2% in April."
    assert (page.title, page.author, page.metadata) == ("Rates rise again", "Ann Lee", {"file": "c/page.html"})
    assert page.published_at == datetime(2024, 5, 31, 8, tzinfo=UTC)
    assert Article.objects.get(metadata__file="b/note.md").title == "A heading"


def test_truncated_zip_fails_whole_file(tmp_path: Path) -> None:
    data = zip_bytes({f"{i}.txt": f"Article {i}.".encode() for i in range(5)})
    path = tmp_path / "cut.zip"
    path.write_bytes(data[: len(data) // 2])
    batch = articles_import_file(path=path)
    assert batch.status == ImportBatch.Status.FAILED and batch.error.startswith("Not a readable ZIP file")
    assert Article.objects.count() == 0


def test_corrupt_zip_member_is_one_bad_row(tmp_path: Path) -> None:
    data = bytearray(zip_bytes({"ok.txt": b"Fine article.", "bad.txt": b"Damaged article text. " * 20}))
    start = data.index(b"bad.txt") + len("bad.txt")  # the first member header, then its data
    data[start + 5] ^= 0xFF
    path = tmp_path / "crc.zip"
    path.write_bytes(bytes(data))
    batch = articles_import_file(path=path)
    assert (batch.rows_stored, batch.rows_rejected) == (1, 1)
    assert batch.errors[0]["reason"].startswith("Cannot read this file from the ZIP")


def test_html_charset_declaration_is_honoured(tmp_path: Path) -> None:
    path = tmp_path / "old.html"
    path.write_bytes('<html><head><meta charset="windows-1252"></head><body><p>Caf\u00e9 prices rose 5%.</p></body></html>'.encode("cp1252"))
    batch = articles_import_file(path=path)
    assert batch.rows_stored == 1 and Article.objects.get().text == "Caf\u00e9 prices rose 5%."


def test_unsupported_file_type_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "data.xlsx"
    path.write_bytes(b"PK")
    with pytest.raises(ImportFileError, match="Unsupported file type '.xlsx'"):
        articles_import_file(path=path)


def test_html_without_article_element_keeps_body_text_minus_chrome() -> None:
    document = html_to_document("<nav>Menu</nav><div>Lead <i>text</i>.<br>Next line.</div><form>Sign up</form><p hidden>x</p>")
    assert document.text == "Lead text.\n\nNext line."


def test_html_end_tags_implied_and_comments_dropped() -> None:
    document = html_to_document("<title>T</title><p>One<p>Two <!-- hidden --><b>bold</i> end<ul><li>a<li>b</ul>")
    assert document.text.startswith("One\n\nTwo bold end\n\n") and "hidden" not in document.text
    assert document.title == "T"


def test_deeply_nested_html_member_is_refused_quickly_and_the_rest_imported(tmp_path: Path) -> None:
    n = 40_000
    hostile = ("<html><body>" + "<div>x" * n + "</div>" * n + "</body></html>").encode()
    path = tmp_path / "hostile.zip"
    path.write_bytes(zip_bytes({"nested.html": hostile, "fine.html": PAGE.encode()}))
    batch = articles_import_file(path=path)
    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected) == (2, 1, 1)
    assert batch.errors[0]["where"] == "nested.html"
    assert batch.errors[0]["reason"] == f"The HTML nests elements more than {MAX_DEPTH} deep."
    # Nesting up to the limit is not refused.
    html_check("<div>" * (MAX_DEPTH - 3) + "deep text")


def test_html_past_the_time_or_size_limit_is_refused() -> None:
    page = "".join(f"<p>Paragraph {n}.</p>" for n in range(20_000))
    assert html_to_document(page).text.count("Paragraph") == 20_000
    with pytest.raises(HtmlRefused, match="took longer than"):
        html_to_document(page, time_limit=0.0)
    with pytest.raises(HtmlRefused, match="more than 50,000 elements"):
        html_to_document("<p>x</p>" * MAX_ELEMENTS)


def test_unmatched_quote_is_reported_with_the_rows_it_swallowed(tmp_path: Path) -> None:
    rows = [f"Story {n},Spending rose {n}% last year.,https://ex.com/{n}" for n in range(10)]
    rows[3] = 'Story 3,"Spending rose 3% last year.,https://ex.com/3'  # the quote never closes
    rows[4] = 'Story 4,"Spending rose 4% last year.",https://ex.com/4'
    path = tmp_path / "stray-quote.csv"
    path.write_text("title,text,url\n" + "\n".join(rows) + "\n", encoding="utf-8")
    batch = articles_import_file(path=path)
    # Ten rows in: eight stored, and the two read as one are one reported error, not a silence.
    assert (batch.rows_stored, batch.rows_rejected) == (8, 1)
    [error] = batch.errors
    assert error["where"] == "lines 5-6"
    assert "A quote opened on line 5 does not close where a field ends" in error["reason"]
    assert not Article.objects.filter(url__in=["https://ex.com/3", "https://ex.com/4"]).exists()


def test_multi_line_quoted_text_is_still_one_row(tmp_path: Path) -> None:
    path = tmp_path / "paragraphs.csv"
    path.write_text('title,text\nA,"First paragraph.\n\nSecond, with ""quotes""."\nB,Plain.\n', encoding="utf-8")
    batch = articles_import_file(path=path)
    assert (batch.rows_stored, batch.rows_rejected) == (2, 0)
    assert Article.objects.get(title="A").text == 'First paragraph.\n\nSecond, with "quotes".'


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_utf16_file_is_refused_with_save_as_utf8(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"excel{suffix}"
    content = "title,text\nA,Crime fell.\n" if suffix == ".csv" else '{"text": "Crime fell."}\n'
    path.write_bytes(content.encode("utf-16"))
    batch = articles_import_file(path=path)
    assert batch.status == ImportBatch.Status.FAILED
    assert "save it as UTF-8" in batch.error and Article.objects.count() == 0


def test_zip_members_outside_the_archive_are_counted_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "climbing.zip"
    path.write_bytes(zip_bytes({"ok.txt": b"Fine article.", "../../etc/evil.txt": b"Evil article.", "/abs.txt": b"Absolute.", "a/../b.txt": b"Sneaky."}))
    batch = articles_import_file(path=path)
    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected) == (4, 1, 3)
    assert {e["where"] for e in batch.errors} == {"../../etc/evil.txt", "/abs.txt", "a/../b.txt"}
    assert {e["reason"] for e in batch.errors} == {"Unsafe file name (.. or an absolute path): not read."}


# --- Pasted text and dates ---------------------------------------------------------------------


def test_pasted_text_is_one_article_and_one_run(admin_user) -> None:  # type: ignore[no-untyped-def]
    batch = import_text(fields={"text": "Pasted claim: 40% of voters.", "title": "Pasted", "outlet": "Blog"}, created_by=admin_user)
    assert (batch.status, batch.format, batch.rows_stored) == (ImportBatch.Status.DONE, "text", 1)
    assert PipelineRun.objects.get(import_batch=batch).created_by == admin_user
    again = import_text(fields={"text": "Pasted claim: 40% of voters."}, created_by=admin_user)
    assert (again.rows_stored, again.rows_duplicate) == (0, 1)


@pytest.mark.parametrize("raw", ["yesterday", "2024-13-01", "31/12/2024", "2024-02-30T10:00:00"])
def test_bad_dates_are_row_errors(raw: str) -> None:
    with pytest.raises(RowError):
        parse_published_at(raw)

