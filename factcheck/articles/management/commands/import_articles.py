"""Import CSV, JSON Lines, ZIP, .txt/.md/.html files from disk, with a progress bar on stderr."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper

from factcheck.articles.models import ImportBatch
from factcheck.articles.readers import ImportFileError
from factcheck.articles.services import articles_import_file


def article_counts(batch: ImportBatch) -> str:
    return f"{batch.rows_stored} stored, {batch.rows_duplicate} duplicates, {batch.rows_rejected} rejected"


class ProgressBar:
    """One line rewritten in place on a terminal; a line every few seconds elsewhere (logs)."""

    def __init__(self, stream: OutputWrapper, label: str, width: int = 24, describe: Callable[[Any], str] | None = None) -> None:
        self.stream, self.label, self.width = stream, label, width
        # What the counters after "N rows" say; the fact-check import counts other things.
        self.describe = describe or article_counts
        self.started = time.monotonic()
        self.last_line = self.started
        self.interactive = stream.isatty()

    def update(self, batch: Any, *, final: bool = False) -> None:
        now = time.monotonic()
        if not (final or self.interactive or now - self.last_line >= 2):
            return
        self.last_line = now
        rate = batch.rows_read / max(now - self.started, 1e-6)
        fraction = 1.0 if final else (batch.bytes_read / batch.file_size if batch.file_size else 0.0)
        filled = int(self.width * min(fraction, 1.0))
        line = (
            f"{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {fraction:4.0%} "
            f"{batch.rows_read} rows ({rate:,.0f} rows/s): {self.describe(batch)}"
        )
        self.stream.write(("\r" + line + "\x1b[K") if self.interactive else line + "\n", ending="")
        if final and self.interactive:
            self.stream.write("")
        self.stream.flush()


class Command(BaseCommand):
    help = (
        "Import articles from CSV, JSON Lines, ZIP (.txt/.md/.html) or single text files. "
        "Re-running a file adds nothing and resumes an interrupted import."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
        parser.add_argument("--outlet", default="", help="Outlet for rows that name none.")
        parser.add_argument("--no-pipeline", action="store_true", help="Store the articles without queueing a pipeline run.")

    def handle(self, *args: Any, **options: Any) -> None:
        failed = []
        self.stderr.style_func = None  # a progress bar, not an error: no red
        for path in options["paths"]:
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
            bar = ProgressBar(self.stderr, path.name)
            try:
                batch = articles_import_file(
                    path=path, default_outlet=options["outlet"], start_pipeline=not options["no_pipeline"], on_progress=bar.update,
                )
            except ImportFileError as exc:
                raise CommandError(f"{path}: {exc}") from None
            bar.update(batch, final=True)
            self.report(path, batch)
            if batch.status != ImportBatch.Status.DONE:
                failed.append(str(path))
        if failed:
            raise CommandError(f"Not imported: {', '.join(failed)}")

    def report(self, path: Path, batch: ImportBatch) -> None:
        self.stdout.write(
            f"{path}: import #{batch.pk} {batch.get_status_display().lower()}: {batch.rows_read} rows read, {batch.rows_stored} stored, "
            f"{batch.rows_duplicate} duplicates, {batch.rows_rejected} rejected."
        )
        if batch.error:
            self.stdout.write(f"  {batch.error}")
        for error in batch.errors[:10]:
            self.stdout.write(f"  row {error['row']} ({error.get('where', '')}): {error['reason']}")
        if batch.rows_rejected > 10:
            self.stdout.write(f"  ... {batch.rows_rejected - 10} more; the batch page has the full report.")
        run = batch.pipeline_runs.order_by("-id").first()
        if run is not None:
            self.stdout.write(f"  Pipeline run #{run.pk} queued over {run.articles_count} new articles.")
