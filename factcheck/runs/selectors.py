"""Reads for pipeline runs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from factcheck.articles.models import Article
from factcheck.claims.models import Claim
from factcheck.progress import time_left_words
from factcheck.runs.models import PipelineRun, PipelineRunArticle


def _in_run(statuses: Iterable[str]) -> Exists:
    return Exists(PipelineRunArticle.objects.filter(article_id=OuterRef("pk"), run__status__in=list(statuses)))


def articles_unprocessed() -> QuerySet[Article]:
    """Articles no run has processed: every run over them failed (or none was made)."""
    return Article.objects.filter(~_in_run([PipelineRun.Status.SUCCEEDED]))


def article_ids_unscheduled(article_ids: Iterable[int]) -> list[int]:
    """Of these articles, the unprocessed ones that no queued or running run will process:
    what an import of them again, or an admin, should schedule."""
    ids = list(article_ids)
    if not ids:
        return []
    pending = _in_run([PipelineRun.Status.QUEUED, PipelineRun.Status.RUNNING])
    return list(articles_unprocessed().filter(pk__in=ids).filter(~pending).order_by("pk").values_list("pk", flat=True))


# The job's stages in order (the stage names pipeline/jobs/extract_claims.py writes), what the
# page calls them, and the key of pipeline_runs.timings that measures each.
STAGES: tuple[tuple[str, str, str], ...] = (
    ("submitting", "Starting Spark", "spark_start"),
    ("extracting", "Extracting claims", "extract"),
    ("clustering", "Clustering", "cluster"),
    ("writing", "Merging into the claims", "load"),
    ("matching", "Matching against earlier fact-checks", "match"),
)
STAGE_NAMES = tuple(name for name, _, _ in STAGES)
# Each stage's share of a run until one has finished here to measure: Spark's start, the
# extraction, clustering and the merge about as a 394-article BBC run took them (9.5, 32.1,
# 4.3 and 2.3 s), matching at the fifth of a run its budget allows (pipeline/jobs/extract_claims.py).
DEFAULT_STAGE_SHARES = (0.15, 0.5, 0.1, 0.05, 0.2)


@dataclass(frozen=True)
class RunProgress:
    """What the run page shows of a run's progress: its stage, counts, the bar and an
    estimate of the time left, only ever from rates measured (this run's extraction so far;
    for the stages after it, the last finished run's time per article)."""

    run: PipelineRun
    stage_label: str
    step: int
    steps: int
    done: int
    total: int
    percent: int
    seconds_left: float | None
    new_claims: int | None
    # Whether the estimate covers the stages after the extraction (a finished run measured them).
    has_reference: bool = False

    @property
    def is_counting(self) -> bool:
        return self.run.stage == "extracting"

    @property
    def time_left(self) -> str:
        """The estimate in words; "estimating" until there is a rate to go by."""
        return time_left_words(self.seconds_left)


def _reference_run(run: PipelineRun) -> PipelineRun | None:
    """The last succeeded run with timings to scale: the measured time per article of the
    stages this run has not reached."""
    return (
        PipelineRun.objects.filter(status=PipelineRun.Status.SUCCEEDED, articles_count__gt=0, timings__has_key="extract")
        .exclude(pk=run.pk)
        .only("articles_count", "timings")
        .order_by("-finished_at", "-id")
        .first()
    )


def _stage_weights(reference: PipelineRun | None) -> list[float]:
    """Each stage's share of a run's time: as the reference run measured it, else the default."""
    seconds = [float(reference.timings.get(key) or 0) for _, _, key in STAGES] if reference is not None else []
    return seconds if sum(seconds) > 0 else list(DEFAULT_STAGE_SHARES)


def _seconds_left(run: PipelineRun, *, now: datetime, reference: PipelineRun | None) -> float | None:
    if run.stage not in STAGE_NAMES or run.stage_started_at is None:
        return None
    index = STAGE_NAMES.index(run.stage)
    in_stage = max(0.0, (now - run.stage_started_at).total_seconds())
    # The reference run's seconds per article of each stage, scaled to this run's size.
    expected = [0.0] * len(STAGES)
    if reference is not None:
        expected = [float(reference.timings.get(key) or 0) / reference.articles_count * run.articles_count for _, _, key in STAGES]
    later = sum(expected[index + 1 :])
    if run.stage == "extracting":
        if run.articles_done <= 0 or in_stage <= 0:
            return None
        rate = run.articles_done / in_stage
        extract_left = max(0, run.articles_count - run.articles_done) / rate
        # The later stages keep the reference's proportion to this run's own extraction speed.
        if expected[index] > 0:
            later *= (run.articles_count / rate) / expected[index]
        return extract_left + later
    if reference is None:
        return None
    return max(0.0, expected[index] - in_stage) + later


def run_progress(*, run: PipelineRun, now: datetime | None = None) -> RunProgress:
    now = now or timezone.now()
    total = run.articles_count
    done = min(run.articles_done, total)
    if run.status == PipelineRun.Status.SUCCEEDED:
        new_claims = Claim.objects.filter(first_run_id=run.pk).count()
        return RunProgress(run, "Done", len(STAGES), len(STAGES), total, total, 100, 0.0, new_claims)
    if run.stage == "done":
        # The job has ended; the worker is recording how.
        return RunProgress(run, "Finishing", len(STAGES), len(STAGES), total, total, 100, None, None)
    step = STAGE_NAMES.index(run.stage) + 1 if run.stage in STAGE_NAMES else 0
    label = STAGES[step - 1][1] if step else (run.stage.capitalize() if run.stage else run.get_status_display())
    reference = _reference_run(run) if run.status == PipelineRun.Status.RUNNING else None
    seconds_left = _seconds_left(run, now=now, reference=reference) if reference is not None or run.stage == "extracting" else None
    percent = 0
    if step:
        # The whole run's share done: the stages before this one, and within the extraction
        # its articles, each stage weighted by the time it took the reference run.
        weights = _stage_weights(reference)
        within = done / total if run.stage == "extracting" and total else 0.0
        percent = int(100 * (sum(weights[: step - 1]) + within * weights[step - 1]) / sum(weights))
    return RunProgress(run, label, step, len(STAGES), done, total, percent, seconds_left, None, has_reference=reference is not None)
