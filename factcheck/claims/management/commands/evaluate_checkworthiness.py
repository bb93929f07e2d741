"""Print precision, recall and F1 of the positive class on CT24 dev-test, and the threshold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from pipeline.training import EVAL_FILE, evaluate


class Command(BaseCommand):
    help = "Evaluate the shipped check-worthiness model on the held-out CT24 dev-test split."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--data", type=Path, default=Path(settings.CHECKWORTHINESS_DATA_DIR))
        parser.add_argument("--model", type=Path, default=None, help="artifact directory (default: the shipped model)")

    def handle(self, *args: Any, **options: Any) -> None:
        data: Path = options["data"]
        if not (data / EVAL_FILE).is_file():
            raise CommandError(f"{EVAL_FILE} not found in {data}.")
        result = evaluate(data, options["model"])
        self.stdout.write(f"dev-test: {result.rows} sentences, {result.positives} check-worthy")
        self.stdout.write(f"precision  {result.precision:.4f}")
        self.stdout.write(f"recall     {result.recall:.4f}")
        low, high = result.f1_interval
        self.stdout.write(f"F1         {result.f1:.4f}  (95% bootstrap interval {low:.3f}-{high:.3f})")
        self.stdout.write(f"threshold  {result.threshold:.4f}  (probability; chosen out of fold on training data, see metadata.json)")
        for genre, figures in (result.cross_validation or {}).items():
            if not isinstance(figures, dict):
                continue
            self.stdout.write(
                f"training, out of fold, {genre}: {figures['sentences']} sentences, P {figures['precision']:.3f} "
                f"R {figures['recall']:.3f} F1 {figures['f1']:.3f}, flagged {figures['flagged_share']:.0%}"
            )
        self.stdout.write(f"scoring    {result.sentences_per_second:,.0f} sentences/s (one process, cold cache)")
