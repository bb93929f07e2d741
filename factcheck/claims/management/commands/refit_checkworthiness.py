"""Refit the check-worthiness kind's ranking model from the base data and the desk's triage
decisions, as the learning page's "Refit now" does, and print its figures beside the active
version's on the held-out decisions. It registers a candidate; promote it on /learning/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from factcheck.accounts.roles import Role, has_role
from factcheck.claims.ranking.refit import checkworthiness_refit


class Command(BaseCommand):
    help = "Refit the ranking model from the graded BBC claims and the desk's triage decisions; register it as a candidate version."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--by", required=True, metavar="USERNAME", help="the admin the new version is recorded as made by")
        parser.add_argument("--bbc", type=Path, default=None, help="BBC News JSONL (default: bbc_news/ beside the CT24 folder)")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["by"]).first()
        if user is None or not has_role(user, Role.ADMIN):
            raise CommandError(f"{options['by']!r} is not an admin.")
        try:
            version = checkworthiness_refit(by=user, bbc_path=options["bbc"])
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        self.stdout.write(json.dumps(version.metrics, indent=1, sort_keys=True))
        self.stdout.write(self.style.SUCCESS(f"Candidate {version.label} registered; promote it on the learning page."))
