"""Make the class archive local Spark runs start from, unless it exists (scripts/setup.sh)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from factcheck.runs.spark import ensure_class_archive


def shown(path: Path) -> str:
    return str(path.relative_to(settings.BASE_DIR)) if path.is_relative_to(settings.BASE_DIR) else str(path)


class Command(BaseCommand):
    help = "Record the JVM class archive that local-mode Spark runs start from; nothing when it already exists."
    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        result = ensure_class_archive()
        if result.outcome == "failed":
            raise CommandError(f"Spark class archive not made in {result.seconds:.1f} s: {result.detail}; Spark runs start without it")
        if result.outcome == "off":
            self.stdout.write(f"Spark class archive: not used ({result.detail})")
        elif result.outcome == "exists" and result.path is not None:
            self.stdout.write(f"Spark class archive: {shown(result.path)} is up to date (checked in {result.seconds:.1f} s)")
        elif result.path is not None:
            size = result.path.stat().st_size / 2**20
            self.stdout.write(f"Spark class archive: made {shown(result.path)} ({size:.0f} MB) in {result.seconds:.1f} s")
