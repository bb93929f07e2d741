"""Import fact-checks into the library (ClaimReview JSON-LD, LIAR TSV, Snopes vclaims), with a
progress line on stderr and a summary per file on stdout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from factcheck.articles.management.commands.import_articles import ProgressBar
from factcheck.articles.readers import ImportFileError
from factcheck.factchecks.models import FactCheckImport
from factcheck.factchecks.services import factchecks_import_file

ERRORS_PRINTED = 10


def library_counts(batch: FactCheckImport) -> str:
    return f"{batch.rows_created} new, {batch.rows_updated} updated, {batch.rows_unchanged} unchanged, {batch.rows_rejected} rejected"


class Command(BaseCommand):
    help = (
        "Import fact-checks into the library. The layout (ClaimReview JSON-LD or JSON lines, LIAR TSV, "
        "Snopes vclaims JSON lines) is read from each file. Importing a file again changes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
        parser.add_argument("--publisher", default="", help="Publisher for rows that name none (default: PolitiFact for LIAR, Snopes for vclaims).")

    def handle(self, *args: Any, **options: Any) -> None:
        failed = []
        self.stderr.style_func = None  # a progress line, not an error: no red
        for path in options["paths"]:
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
            bar = ProgressBar(self.stderr, path.name, describe=library_counts)
            try:
                batch = factchecks_import_file(path=path, publisher=options["publisher"], on_progress=bar.update)
            except ImportFileError as exc:
                raise CommandError(f"{path}: {exc}") from None
            bar.update(batch, final=True)
            self.report(path, batch)
            if batch.status != FactCheckImport.Status.DONE:
                failed.append(str(path))
        if failed:
            raise CommandError(f"Not imported: {', '.join(failed)}")

    def report(self, path: Path, batch: FactCheckImport) -> None:
        self.stdout.write(
            f"{path}: import #{batch.pk} ({batch.get_layout_display()}) {batch.get_status_display().lower()}: {batch.rows_read} rows read, "
            f"{library_counts(batch)}."
        )
        if batch.error:
            self.stdout.write(f"  {batch.error}")
        for error in batch.errors[:ERRORS_PRINTED]:
            self.stdout.write(f"  row {error['row']} ({error.get('where', '')}): {error['reason']}")
        if batch.rows_rejected > ERRORS_PRINTED:
            self.stdout.write(f"  ... {batch.rows_rejected - ERRORS_PRINTED} more; the import's page has the full list.")
