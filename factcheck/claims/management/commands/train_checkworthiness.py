"""Retrain the check-worthiness model and write the artifact the pipeline ships with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from pipeline.nlp.checkworthiness import default_artifact_dir


class Command(BaseCommand):
    help = (
        "Train the check-worthiness model (the CNN on CT24 train+dev, then the head on CT24 train+dev and our labelled "
        "BBC news sentences; never dev-test) and write pipeline/models/checkworthiness/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--data", type=Path, default=Path(settings.CHECKWORTHINESS_DATA_DIR))
        parser.add_argument("--out", type=Path, default=default_artifact_dir())
        parser.add_argument("--bbc", type=Path, default=None, help="BBC News JSONL (default: bbc_news/ beside the CT24 folder)")
        parser.add_argument("--teacher", type=Path, default=None, help="teacher logits (default: training/checkworthiness_teacher_logits.npz)")
        parser.add_argument("--device", default="cpu", help="torch device for the student, e.g. cuda (default: cpu)")
        parser.add_argument("--seed", type=int, default=0, help="seed of the head's made-up negatives and solver (default: 0)")
        parser.add_argument(
            "--head-only", action="store_true",
            help="keep the CNN in --out and retrain only the head (scikit-learn only, a minute or two; no torch)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        data: Path = options["data"]
        if not data.is_dir():
            raise CommandError(f"Training data not found at {data} (CT24 task 1 English; see README, 'Check-worthiness model').")
        from pipeline.training import train_head

        try:
            if not options["head_only"]:
                try:
                    from pipeline.training import train
                except ImportError as exc:
                    raise CommandError(f"Training needs extra packages: pip install -r requirements-train.txt ({exc})") from exc
                train(data, options["out"], log=self.stdout.write, bbc_path=options["bbc"], teacher_path=options["teacher"], device=options["device"])
            metadata = train_head(data, options["out"], log=self.stdout.write, bbc_path=options["bbc"], seed=options["seed"])
        except ModuleNotFoundError as exc:
            raise CommandError(f"Training needs extra packages: pip install -r requirements-train.txt ({exc})") from exc
        except (FileNotFoundError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"Model written to {options['out']} (threshold {metadata['threshold']:.4f})."))
