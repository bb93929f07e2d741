"""Import seeds/ and run the pipeline on the new articles through Celery."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from factcheck.articles.seeds import seed_articles
from factcheck.articles.services import articles_import
from factcheck.runs.models import PipelineRun


class Command(BaseCommand):
    help = "Import the seed articles (idempotent) and queue a pipeline run for any new ones."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--wait", action="store_true", help="Wait for the pipeline run and print its progress.")
        parser.add_argument("--timeout", type=int, default=600, help="Seconds to wait with --wait.")

    def handle(self, *args: Any, **options: Any) -> None:
        result = articles_import(source="seeds", articles=seed_articles())
        batch = result.batch
        self.stdout.write(
            f"Seeds: {batch.rows_read} read, {batch.rows_stored} new, {batch.rows_duplicate} already stored, "
            f"{batch.rows_rejected} rejected"
        )
        run = result.run
        if run is None:
            # Seeds stored earlier are in the run too when no run has processed them (an
            # earlier `make up` stopped first, or their run failed): none here means none is needed.
            self.stdout.write("No new or unprocessed articles: the pipeline has nothing to do.")
            return
        self.stdout.write(f"Pipeline run #{run.pk} queued.")
        if options["wait"]:
            self.wait_for(run.pk, options["timeout"])

    def wait_for(self, run_id: int, timeout: int) -> None:
        deadline = time.monotonic() + timeout
        last_stage = ""
        while time.monotonic() < deadline:
            run = PipelineRun.objects.get(pk=run_id)
            if run.stage != last_stage:
                self.stdout.write(f"  run #{run_id}: {run.status} / {run.stage}")
                last_stage = run.stage
            if run.status == PipelineRun.Status.SUCCEEDED:
                self.stdout.write(
                    f"Run #{run_id} done in {run.duration_seconds:.1f}s: {run.sentences_count} sentences, "
                    f"{run.claims_count} claims."
                )
                return
            if run.status == PipelineRun.Status.FAILED:
                raise CommandError(f"Run #{run_id} failed: {run.error}\n{run.log_tail}")
            time.sleep(0.5)
        raise CommandError(f"Run #{run_id} did not finish within {timeout}s; is a Celery worker running?")
