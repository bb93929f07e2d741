"""Refit the claim matcher from the desk's decisions: a candidate version an admin promotes
on /learning/ (factcheck.factchecks.refit)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from factcheck.factchecks.refit import PRIMARY, matching_refit


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            version = matching_refit(by=None)
        except ValidationError as refused:
            raise CommandError(" ".join(refused.messages)) from None
        metrics = version.metrics
        self.stdout.write(
            f"Registered {version.label} (candidate) from {metrics['trained_on']['scored_pairs']} decisions; on {metrics['held_out']} held out, "
            f"{PRIMARY} {metrics['before'][PRIMARY]:.3f} (active) -> {metrics['after'][PRIMARY]:.3f}. Promote it on /learning/."
        )
