"""A 50 MB file imports with flat memory: the importer streams, it never holds the file."""

from __future__ import annotations

import csv
import tracemalloc
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
