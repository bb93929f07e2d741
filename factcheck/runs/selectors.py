"""Reads for pipeline runs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from statistics import median

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
# Spark's start costs the same whatever a run holds; every other stage has a fixed part and a
# part that grows with the run's articles. Scaling a fixed cost by articles is what made a
# 2,225-article run "about 1 h 21 min" away at Spark's start after a 3-article run.
FIXED_COST_STAGES = frozenset({"spark_start"})
# The finished runs a stage's cost is fitted on, newest first.
REFERENCE_RUNS = 12
# A cost measured on runs of one size only says nothing of its fixed part: it is trusted for
# runs within this factor of that size, and a linear fit up to this factor past its largest run.
ONE_SIZE_REACH = 4.0
FIT_REACH = 10.0


@dataclass(frozen=True)
class RunProgress:
    """What the run page shows of a run's progress: its stage, counts, the bar and an
    estimate of the time left, only ever from rates measured (this run's extraction so far;
    for the other stages, their cost fitted on the last finished runs: fixed plus per article)."""

    run: PipelineRun
    stage_label: str
    step: int
    steps: int
    done: int
    total: int
    percent: int
    seconds_left: float | None
    new_claims: int | None
    # Whether the estimate covers the stages after this one (finished runs measured them at this size).
    has_reference: bool = False

    @property
    def is_counting(self) -> bool:
        return self.run.stage == "extracting"

    @property
    def time_left(self) -> str:
        """The estimate in words; "estimating" until there is a rate to go by."""
        return time_left_words(self.seconds_left)


@dataclass(frozen=True)
class StageCost:
    """Seconds one stage takes a run of n articles: fixed + per_article * n, valid up to `reach` articles."""

    fixed: float
    per_article: float
    reach_low: float
    reach_high: float

    def seconds(self, articles: int) -> float | None:
        if not self.reach_low <= articles <= self.reach_high:
            return None
        return self.fixed + self.per_article * articles


def fit_stage_cost(points: list[tuple[int, float]], *, fixed_only: bool) -> StageCost | None:
    """A stage's cost from (articles, seconds) of finished runs: least squares of a line with
    both parts at least 0; a single size gives a cost per article (or a fixed one), trusted
    near that size only."""
    points = [(n, t) for n, t in points if n > 0 and t >= 0]
    if not points:
        return None
    sizes = [n for n, _ in points]
    seconds = [t for _, t in points]
    low, high = min(sizes), max(sizes)
    if fixed_only:
        return StageCost(median(seconds), 0.0, 0, float("inf"))
    if low == high:
        return StageCost(0.0, sum(seconds) / sum(sizes), low / ONE_SIZE_REACH, high * ONE_SIZE_REACH)
    mean_n, mean_t = sum(sizes) / len(sizes), sum(seconds) / len(seconds)
    slope = sum((n - mean_n) * (t - mean_t) for n, t in points) / sum((n - mean_n) ** 2 for n in sizes)
    fixed = mean_t - slope * mean_n
    if slope < 0:
        fixed, slope = mean_t, 0.0
    elif fixed < 0:
        fixed, slope = 0.0, sum(n * t for n, t in points) / sum(n * n for n in sizes)
    return StageCost(fixed, slope, 0, high * FIT_REACH)


def stage_costs(run: PipelineRun) -> list[StageCost | None]:
    """Each stage's cost, fitted on the last finished runs that measured it (not this one)."""
    references = list(
        PipelineRun.objects.filter(status=PipelineRun.Status.SUCCEEDED, articles_count__gt=0, timings__has_key="extract")
        .exclude(pk=run.pk)
        .only("articles_count", "timings")
        .order_by("-finished_at", "-id")[:REFERENCE_RUNS]
    )
    costs: list[StageCost | None] = []
    for _, _, key in STAGES:
        points = [(r.articles_count, float(r.timings[key])) for r in references if isinstance(r.timings.get(key), int | float)]
        if references and not points:
            # Finished runs that never reached a stage skipped it (matching with no library).
            costs.append(StageCost(0.0, 0.0, 0, float("inf")))
            continue
        costs.append(fit_stage_cost(points, fixed_only=key in FIXED_COST_STAGES))
    return costs


def _expected_seconds(run: PipelineRun, costs: list[StageCost | None]) -> list[float | None]:
    return [cost.seconds(run.articles_count) if cost is not None else None for cost in costs]


def _stage_weights(expected: list[float | None]) -> list[float]:
    """Each stage's share of this run's time: as the fitted costs expect it, else the default."""
    if all(seconds is not None for seconds in expected) and sum(s or 0.0 for s in expected) > 0:
        return [s or 0.0 for s in expected]
    return list(DEFAULT_STAGE_SHARES)


def _seconds_left(run: PipelineRun, *, now: datetime, expected: list[float | None]) -> float | None:
    """What is left of this stage and the stages after it. The extraction's own rate so far
    stands for the extraction; the stages after it are the fitted costs. None (estimating)
    while a stage left has no measured cost for a run of this size."""
    if run.stage not in STAGE_NAMES or run.stage_started_at is None:
        return None
    index = STAGE_NAMES.index(run.stage)
    in_stage = max(0.0, (now - run.stage_started_at).total_seconds())
    later_expected = expected[index + 1 :]
    later = None if any(s is None for s in later_expected) else sum(s or 0.0 for s in later_expected)
    if run.stage == "extracting":
        if run.articles_done <= 0 or in_stage <= 0:
            return None
        rate = run.articles_done / in_stage
        extract_left = max(0, run.articles_count - run.articles_done) / rate
        # Without a measured cost of the later stages the page says this is the extraction alone.
        return extract_left + (later or 0.0)
    current = expected[index]
    if current is None or later is None:
        return None
    return max(0.0, current - in_stage) + later


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
    expected = _expected_seconds(run, stage_costs(run)) if run.status == PipelineRun.Status.RUNNING else [None] * len(STAGES)
    seconds_left = _seconds_left(run, now=now, expected=expected)
    percent = 0
    if step:
        # The whole run's share done: the stages before this one, and within the extraction
        # its articles, each stage weighted by the time it is expected to take this run.
        weights = _stage_weights(expected)
        within = done / total if run.stage == "extracting" and total else 0.0
        percent = int(100 * (sum(weights[: step - 1]) + within * weights[step - 1]) / sum(weights))
    has_reference = all(s is not None for s in expected[step:]) if step else False
    return RunProgress(run, label, step, len(STAGES), done, total, percent, seconds_left, None, has_reference=has_reference)
