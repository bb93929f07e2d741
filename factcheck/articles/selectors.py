"""Reads for import batches (the progress page and the error report) and for the queue's
article filters (metadata values, title suggestions)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from django.core.cache import cache
from django.db import connection
from django.db.models import F, Max
from django.utils import timezone

from factcheck.articles.models import Article, ImportBatch
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


# --- The queue's article filters ---------------------------------------------------------------

METADATA_VALUES_SQL = (Path(__file__).parent / "metadata_values.sql").read_text()
# Keys with more distinct values than this are ids or addresses, not groups (see the SQL).
METADATA_MAX_VALUES = 50
METADATA_MAX_LENGTH = 100
METADATA_CACHE_SECONDS = 300
TITLE_SUGGESTIONS = 10


@dataclass(frozen=True)
class MetadataValue:
    value: str
    articles: int


@dataclass(frozen=True)
class MetadataKey:
    key: str
    values: list[MetadataValue]


def article_metadata_values(*, newest_article: str | None) -> list[MetadataKey]:
    """The metadata keys and values the filter bar offers, in key order.

    Reading them passes over every article's metadata, so the answer is cached, keyed by the
    newest article ("id@created_at"; claims.queue.selectors.queue_choices reads it in its round
    trip): an import shows its new values on the next page, a change to older articles'
    metadata within METADATA_CACHE_SECONDS."""
    if newest_article is None:
        return []
    cache_key = f"article-metadata-values:{newest_article}"
    found = cache.get(cache_key)
    if found is None:
        with connection.cursor() as cursor:
            cursor.execute(METADATA_VALUES_SQL, {"max_values": METADATA_MAX_VALUES, "max_length": METADATA_MAX_LENGTH})
            found = [list(row) for row in cursor.fetchall()]
        cache.set(cache_key, found, METADATA_CACHE_SECONDS)
    keys: dict[str, list[MetadataValue]] = {}
    for key, value, articles in found:
        keys.setdefault(key, []).append(MetadataValue(value=value, articles=articles))
    return [MetadataKey(key=key, values=values) for key, values in keys.items()]


def article_titles_matching(*, text: str, limit: int = TITLE_SUGGESTIONS) -> list[str]:
    """Distinct article titles holding `text` (case-insensitive), newest first: the
    suggestions of the queue's article filter."""
    text = text.strip()
    if not text:
        return []
    titles = (
        Article.objects.filter(title__icontains=text)
        .values("title")
        .annotate(newest=Max("published_at"), last_id=Max("id"))
        .order_by(F("newest").desc(nulls_last=True), "-last_id")
        .values_list("title", flat=True)
    )
    return list(titles[:limit])
