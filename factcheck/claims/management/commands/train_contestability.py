"""Fit the contestability model (the queue's ranking of what a desk would take) on our graded
BBC claims and write the artifact the pipeline ships with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from pipeline.contestability_training import default_bbc_path, train_shipped
from pipeline.nlp.contestability import SHIPPED_DIR


class Command(BaseCommand):
    help = (
        "Fit the contestability model on training/bbc_news_rank_labels.tsv and bbc_news_rank_pool_labels.tsv "
        "(outside the held-out fifth of articles), print its out-of-fold figures, and write pipeline/models/contestability/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bbc", type=Path, default=default_bbc_path(Path(settings.CHECKWORTHINESS_DATA_DIR)))
        parser.add_argument("--out", type=Path, default=SHIPPED_DIR)

    def handle(self, *args: Any, **options: Any) -> None:
        from pipeline.nlp.checkworthiness import load_scorer

        try:
            train_shipped(options["bbc"], load_scorer(), options["out"], log=self.stdout.write)
        except (FileNotFoundError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"Model written to {options['out']}."))
