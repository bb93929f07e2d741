"""Reads for import batches: the progress page and the error report."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from factcheck.articles.models import ImportBatch
from factcheck.claims.models import Claim
from factcheck.runs.models import PipelineRun
from factcheck.runs.selectors import RunProgress, run_progress

ERRORS_SHOWN = 20


@dataclass(frozen=True)
class BatchProgress:
    batch: ImportBatch
    errors_shown: list[dict[str, object]]
    errors_listed: int
    runs: list[PipelineRun]
    claims_found: int
    run_progresses: list[RunProgress]
    # The claims its runs found first, once every run has finished.
    new_claims: int | None

    @property
    def pipeline_finished(self) -> bool:
        return all(run.is_finished for run in self.runs)

    @property
    def is_live(self) -> bool:
        """Whether anything on the page can still change (the page keeps polling while so)."""
        return not self.batch.is_finished or not self.pipeline_finished

    @property
    def resumable(self) -> bool:
        return self.batch.status == ImportBatch.Status.FAILED and bool(self.batch.upload_name)


def _errors_slice(batch_id: int, limit: int) -> tuple[list[dict[str, object]], int]:
    # The error list can be long; only its length and first entries leave the database.
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT jsonb_array_length(errors), jsonb_path_query_array(errors, %s::jsonpath) FROM {ImportBatch._meta.db_table} WHERE id = %s",
            [f"$[0 to {max(limit - 1, 0)}]", batch_id],
        )
        found = cursor.fetchone()
    if found is None:
        return [], 0
    listed, shown = found
    # Django's backend hands jsonb to Python as text (JSONField decodes it); so must this.
    return json.loads(shown) if isinstance(shown, str) else list(shown or []), listed


def batch_progress(*, batch_id: int) -> BatchProgress | None:
    batch = ImportBatch.objects.defer("errors").select_related("created_by").filter(pk=batch_id).first()
    if batch is None:
        return None
    shown, listed = _errors_slice(batch_id, ERRORS_SHOWN)
    runs = list(PipelineRun.objects.filter(import_batch_id=batch_id).order_by("created_at", "id"))
    claims = sum(run.claims_count for run in runs)
    now = timezone.now()
    finished = bool(runs) and all(run.is_finished for run in runs)
    new_claims = Claim.objects.filter(first_run__import_batch_id=batch_id).count() if finished else None
    return BatchProgress(
        batch=batch, errors_shown=shown, errors_listed=listed, runs=runs, claims_found=claims,
        run_progresses=[run_progress(run=run, now=now) for run in runs], new_claims=new_claims,
    )


def batch_errors(*, batch: ImportBatch) -> list[dict[str, object]]:
    """Every listed error, in row order (at most FACTCHECK_IMPORT_MAX_LISTED_ERRORS)."""
    return list(ImportBatch.objects.filter(pk=batch.pk).values_list("errors", flat=True).first() or [])


def batches_recent(*, limit: int = 50) -> list[ImportBatch]:
    return list(ImportBatch.objects.defer("errors")[:limit])
