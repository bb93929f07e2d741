"""Print the ClaimReview JSON-LD of a published verdict, or of every one (the feed)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse

from factcheck.claims.models import Verdict
from factcheck.publishing.selectors import organisation_current
from factcheck.reports import selectors
from factcheck.reports.claimreview import claimreview_document


class Command(BaseCommand):
    help = "Print the ClaimReview JSON-LD of a claim's published verdict (--claim or --verdict), or of all of them (--all)."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--claim", type=int, help="claim id")
        which.add_argument("--verdict", type=int, help="any revision's id: its claim's published revision is exported")
        which.add_argument("--all", action="store_true", help="every published verdict, one JSON document per line")
        parser.add_argument(
            "--base-url", default="",
            help="where the published pages live, e.g. https://factcheck.example.org (default: the organisation's public base URL)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        organisation = organisation_current()
        base = (options["base_url"] or organisation.public_base_url).rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise CommandError(
                "Give --base-url https://... (or the organisation's public base URL on its admin page): a ClaimReview's url must be absolute."
            )

        def document(source: selectors.ReviewSource) -> dict[str, Any]:
            url = base + reverse("publishing:page", args=[source.claim_id])
            return claimreview_document(source, page_url=url, organisation=organisation)

        if options["all"]:
            for source in selectors.review_sources():
                self.stdout.write(json.dumps(document(source), ensure_ascii=False))
            return
        try:
            if options["verdict"] is not None:
                source = selectors.review_source_for_verdict(verdict_id=options["verdict"])
            else:
                source = selectors.review_source_for_claim(claim_id=options["claim"])
        except Verdict.DoesNotExist as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(document(source), ensure_ascii=False, indent=2))
