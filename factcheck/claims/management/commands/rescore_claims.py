"""Score every stored claim's contestability with the active model version and re-rank the
queue: after claims migration 0027 (claims stored before it have none) or a promotion."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from factcheck.claims.ranking.services import claims_rescore


class Command(BaseCommand):
    help = "Score every stored claim's contestability with the active check-worthiness version, then re-rank the queue."

    def handle(self, *args: Any, **options: Any) -> None:
        changed = claims_rescore()
        self.stdout.write(self.style.SUCCESS(f"{changed} claims scored anew; the queue is re-ranked."))
