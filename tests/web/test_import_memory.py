"""A 50 MB file imports with flat memory: the importer streams, it never holds the file."""

from __future__ import annotations

import csv
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from factcheck.articles.models import Article, ImportBatch
from factcheck.articles.services import articles_import_file

pytestmark = pytest.mark.django_db

PARAGRAPH = "The council said spending rose {n}% to £{m} million in {year}, the highest figure on record. " * 24


def build_csv(path: Path, *, min_bytes: int) -> int:
    rows = 0
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["title", "text", "url", "outlet", "published_at", "desk"])
        while handle.tell() < min_bytes:
            rows += 1
            text = PARAGRAPH.format(n=rows % 97, m=rows, year=1990 + rows % 30)
            writer.writerow([f"Story {rows}", text, f"https://ex.com/{rows}", f"Outlet {rows % 7}", "2024-05-31", "metro"])
    return rows


def test_fifty_megabyte_csv_imports_with_flat_memory(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_IMPORT_CHUNK_ROWS = 500
    path = tmp_path / "big.csv"
    rows = build_csv(path, min_bytes=50 * 1024**2)
    size = path.stat().st_size
    assert size >= 50 * 1024**2

    tracemalloc.start()
    try:
        batch = articles_import_file(path=path, start_pipeline=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert batch.status == ImportBatch.Status.DONE
    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected) == (rows, rows, 0)
    assert Article.objects.count() == rows
    # A chunk of 500 rows is ~1.2 MB of text; reading the file whole would be 50 MB or more.
    assert peak < 25 * 1024**2, f"peak {peak / 2**20:.1f} MB for a {size / 2**20:.0f} MB file"


def zip_of_large_members(path: Path, *, accepted: int, rejected: int, chars: int, max_text_chars: int) -> None:
    """Members of `chars` characters that import, and members over `max_text_chars` that are rejected."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for n in range(accepted):
            archive.writestr(f"ok/{n}.txt", (f"Article {n}. " + PARAGRAPH.format(n=n, m=n, year=2000))[:chars].ljust(chars, "x"))
        for n in range(rejected):
            archive.writestr(f"long/{n}.txt", f"Too long {n}. " + "y" * (max_text_chars + 10_000))


def test_zip_of_many_large_members_holds_one_chunk_of_text_at_most(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Rows are prepared, rejected rows forgotten but for their reason, and a chunk ends at
    its character budget: memory follows the budget, not the file's text."""
    settings.FACTCHECK_IMPORT_CHUNK_ROWS = 1000
    settings.FACTCHECK_IMPORT_MAX_TEXT_CHARS = 300_000
    settings.FACTCHECK_IMPORT_CHUNK_MAX_CHARS = 2_000_000
    path = tmp_path / "large-members.zip"
    zip_of_large_members(path, accepted=120, rejected=120, chars=280_000, max_text_chars=300_000)

    tracemalloc.start()
    try:
        batch = articles_import_file(path=path, start_pipeline=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert (batch.rows_read, batch.rows_stored, batch.rows_rejected) == (240, 120, 120)
    assert all(e["where"].startswith("long/") and e["reason"].endswith("the limit is 300000.") for e in batch.errors)
    # The ZIP holds 71 MB of text; the old importer peaked at 102 MB on half of it. Now: one
    # chunk's text (2 MB) held several times over by the INSERT's client-side literals
    # (psycopg keeps the last statement's until the next), about 25 MB whatever the file's size.
    assert peak < 40 * 1024**2, f"peak {peak / 2**20:.1f} MB"
