"""`manage.py import_articles PATH... [--outlet ...]`: progress on stderr, a summary on stdout."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from factcheck.articles.models import Article, ImportBatch
from factcheck.runs.models import PipelineRun

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_articles", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_imports_several_files_with_progress_and_is_idempotent(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_IMPORT_CHUNK_ROWS = 5
    feed = tmp_path / "feed.jsonl"
    feed.write_text("\n".join(json.dumps({"text": f"Feed story {i}.", "title": f"Story {i}"}) for i in range(12)) + "\n{oops\n")
    page = tmp_path / "page.md"
    page.write_text("# Budget\n\nThe budget grew 4%.")

    out, err = run(str(feed), str(page), "--outlet", "Wire")
    assert f"{feed}: import #" in out and "13 rows read, 12 stored, 0 duplicates, 1 rejected." in out
    assert "row 13 (line 13): Not valid JSON" in out
    assert "1 rows read, 1 stored" in out and out.count("Pipeline run #") == 2
    assert "rows/s" in err and "feed.jsonl [" in err and "100%" in err
    assert Article.objects.count() == 13 and set(Article.objects.values_list("outlet__name", flat=True)) == {"Wire"}

    out, _ = run(str(feed), str(page))
    assert "12 duplicates" in out and "0 stored" in out and "Pipeline run #" not in out
    assert Article.objects.count() == 13 and PipelineRun.objects.count() == 2


def test_no_pipeline_flag_stores_without_a_run(tmp_path: Path) -> None:
    path = tmp_path / "one.txt"
    path.write_text("Just one article.")
    run(str(path), "--no-pipeline")
    assert Article.objects.count() == 1 and not PipelineRun.objects.exists()


def test_missing_unsupported_and_broken_files_are_command_errors(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        run(str(tmp_path / "absent.csv"))
    odd = tmp_path / "table.xlsx"
    odd.write_bytes(b"PK")
    with pytest.raises(CommandError, match="Unsupported file type"):
        run(str(odd))
    broken = tmp_path / "cols.csv"
    broken.write_text("headline,body\nA,B\n")
    with pytest.raises(CommandError, match="Not imported: .*cols.csv"):
        run(str(broken))
    assert ImportBatch.objects.get().error.startswith("Missing column: text")
