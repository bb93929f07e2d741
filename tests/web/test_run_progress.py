"""Progress on the run and import pages: the stage, the counts, a bar, a time estimate only
from rates measured, and at the end a link to the claims the run (or import) found."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from factcheck.articles.models import ImportBatch
from factcheck.claims.models import Claim
from factcheck.progress import time_left_words
from factcheck.runs.models import PipelineRun
from factcheck.runs.selectors import fit_stage_cost, run_progress
from tests.web.test_queue import logged_in, shown_ids
from tests.workflow.factories import make_claim

pytestmark = pytest.mark.django_db

NOW = timezone.now()


def extracting(*, done: int, seconds_in: float, total: int = 1000) -> PipelineRun:
    return PipelineRun.objects.create(
        status=PipelineRun.Status.RUNNING, stage="extracting", articles_count=total, articles_done=done, claims_count=done * 3,
        started_at=NOW - timedelta(seconds=seconds_in + 20), stage_started_at=NOW - timedelta(seconds=seconds_in),
    )


def reference_run() -> PipelineRun:
    """A finished run of 500 articles: its seconds per stage are what later stages cost."""
    return PipelineRun.objects.create(
        status=PipelineRun.Status.SUCCEEDED, stage="done", articles_count=500, finished_at=NOW - timedelta(hours=1),
        timings={"spark_start": 5.0, "extract": 100.0, "cluster": 10.0, "load": 10.0, "total": 125.0},
    )


def test_the_estimate_waits_for_a_rate_then_divides_what_is_left_by_it() -> None:
    assert run_progress(run=extracting(done=0, seconds_in=30), now=NOW).time_left == "estimating"

    progress = run_progress(run=extracting(done=300, seconds_in=60), now=NOW)
    # 300 articles a minute: 700 left take 140 s; no finished run says what the later stages take.
    assert (progress.step, progress.steps, progress.stage_label, progress.done, progress.total) == (2, 5, "Extracting claims", 300, 1000)
    assert progress.seconds_left == pytest.approx(140)
    assert (progress.time_left, progress.has_reference) == ("about 2 minutes left", False)
    assert progress.percent == 30  # the default shares: Spark's start (15%) and 0.3 of the extraction's 50%


def test_later_stages_are_estimated_from_the_last_finished_runs_time_per_article() -> None:
    reference_run()
    progress = run_progress(run=extracting(done=300, seconds_in=60), now=NOW)
    # The reference ran 500 articles: clustering and the merge took it 10 s each, 40 s for this
    # run's 1000 (it never matched: no library, nothing to wait for), after 140 s of extraction.
    assert progress.seconds_left == pytest.approx(180)
    assert (progress.time_left, progress.has_reference) == ("about 3 minutes left", True)
    assert progress.percent == 26  # (5 + 0.3 * 200) of the 245 seconds expected of 1000 articles

    slower = run_progress(run=extracting(done=150, seconds_in=60), now=NOW)
    assert slower.seconds_left == pytest.approx(340 + 40)

    clustering = PipelineRun.objects.create(
        status=PipelineRun.Status.RUNNING, stage="clustering", articles_count=1000, articles_done=1000,
        stage_started_at=NOW - timedelta(seconds=5),
    )
    assert run_progress(run=clustering, now=NOW).seconds_left == pytest.approx(20 - 5 + 20)


def finished(articles: int, **timings: float) -> PipelineRun:
    return PipelineRun.objects.create(
        status=PipelineRun.Status.SUCCEEDED, stage="done", articles_count=articles, finished_at=NOW - timedelta(hours=1), timings=timings,
    )


def starting(articles: int, *, seconds_in: float = 2) -> PipelineRun:
    return PipelineRun.objects.create(
        status=PipelineRun.Status.RUNNING, stage="submitting", articles_count=articles, stage_started_at=NOW - timedelta(seconds=seconds_in),
    )


def test_sparks_start_is_a_fixed_cost_and_a_cost_seen_at_one_size_only_is_not_stretched_far() -> None:
    # The seeds' run (3 articles) is the only one finished: its start says what a start takes,
    # but its seconds per article say nothing of a 2,225-article run's (they are mostly fixed costs).
    finished(3, spark_start=9.0, extract=2.0, cluster=0.5, load=0.3, match=1.0)
    bbc = run_progress(run=starting(2225), now=NOW)
    assert (bbc.time_left, bbc.has_reference, bbc.percent) == ("estimating", False, 0)
    # A run of the same size is estimated: 7 s of the start left, then 3.8 s.
    assert run_progress(run=starting(3), now=NOW).seconds_left == pytest.approx(7 + 3.8)


def test_runs_of_two_sizes_give_each_stage_a_fixed_part_and_a_part_per_article() -> None:
    finished(3, spark_start=9.0, extract=2.0, cluster=0.5, load=0.3, match=1.0)
    finished(2225, spark_start=10.0, extract=30.0, cluster=4.0, load=3.0, match=6.0)
    bbc = run_progress(run=starting(2225), now=NOW)
    # The start's median (9.5 s) less the 2 s spent, then what the BBC run took.
    assert bbc.seconds_left == pytest.approx(7.5 + 43, abs=0.01)
    assert bbc.has_reference
    # A 2-article run is not "almost done" at its start: Spark's start and each stage's fixed part remain.
    small = run_progress(run=starting(2), now=NOW)
    assert small.seconds_left == pytest.approx(7.5 + 3.8, abs=0.1)
    assert small.time_left == "under a minute left"


@pytest.mark.parametrize(
    ("points", "fixed", "per_article"),
    [
        ([(100, 12.0), (1000, 102.0)], 2.0, 0.1),
        ([(100, 50.0), (1000, 40.0)], 45.0, 0.0),  # slower on less: no part per article
        ([(100, 1.0), (1000, 100.0)], 0.0, 100_100 / 1_010_000),  # no negative fixed part: through 0
    ],
)
def test_a_stage_cost_is_a_line_with_no_negative_part(points: list[tuple[int, float]], fixed: float, per_article: float) -> None:
    cost = fit_stage_cost(points, fixed_only=False)
    assert cost is not None
    assert (cost.fixed, cost.per_article) == (pytest.approx(fixed), pytest.approx(per_article))
    assert cost.seconds(20_000) is None  # 20 times the largest run measured: not extrapolated


def test_a_stage_without_counts_and_no_finished_run_says_estimating() -> None:
    run = PipelineRun.objects.create(status=PipelineRun.Status.RUNNING, stage="writing", articles_count=10, stage_started_at=NOW)
    progress = run_progress(run=run, now=NOW)
    assert (progress.time_left, progress.step, progress.percent) == ("estimating", 4, 75)


def test_between_the_jobs_end_and_the_workers_record_the_run_is_finishing() -> None:
    run = PipelineRun.objects.create(status=PipelineRun.Status.RUNNING, stage="done", articles_count=10, articles_done=10)
    progress = run_progress(run=run, now=NOW)
    assert (progress.stage_label, progress.percent, progress.step) == ("Finishing", 100, 5)


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(None, "estimating"), (0.2, "almost done"), (42, "under a minute left"), (89, "about 1 minute left"), (3 * 3600 + 5 * 60, "about 3 h 05 min left")],
)
def test_time_left_in_words(seconds: float | None, words: str) -> None:
    assert time_left_words(seconds) == words


def test_the_run_page_polls_a_bar_with_stage_and_counts_while_running(reviewer) -> None:  # type: ignore[no-untyped-def]
    run = extracting(done=300, seconds_in=60)
    html = logged_in(reviewer).get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert 'hx-trigger="every 2s"' in html and 'hx-select="#run-detail"' in html
    assert "Step 2 of 5" in html and "Extracting claims" in html
    assert '<progress max="100" value="30"' in html
    assert "300 of 1,000 articles extracted · 900 claims so far" in html
    assert "Time left: about" in html and "See the" not in html


def test_a_finished_run_links_to_exactly_the_claims_it_found_first(reviewer) -> None:  # type: ignore[no-untyped-def]
    run = PipelineRun.objects.create(status=PipelineRun.Status.SUCCEEDED, stage="done", articles_count=3, articles_done=3, claims_count=4, claims_written=3)
    found = [make_claim(sentence="Rents rose 12% in a year."), make_claim(sentence="Crime fell 8% in 2024.")]
    older = make_claim(sentence="Fares doubled since 2019.")
    Claim.objects.filter(pk__in=[claim.pk for claim in found]).update(first_run=run, last_run=run)
    client = logged_in(reviewer)
    html = client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "every 2s" not in html  # nothing left to poll for
    assert f'href="/claims/?run={run.pk}"' in html and "See the 2 new claims" in html
    assert '<progress max="100" value="100"' in html
    assert sorted(shown_ids(client.get(f"/claims/?run={run.pk}").content.decode())) == sorted(claim.pk for claim in found)
    assert older.pk not in shown_ids(client.get(f"/claims/?run={run.pk}").content.decode())


def test_the_run_page_shows_the_stages_seconds_not_their_parts(reviewer) -> None:  # type: ignore[no-untyped-def]
    run = PipelineRun.objects.create(
        status=PipelineRun.Status.SUCCEEDED, stage="done", articles_count=3, articles_done=3,
        timings={"extract": 12.1, "extract.tasks": 4.0, "extract.models": 1.1, "load": 3.1, "merge.bands": 1.0, "total": 20.5},
    )
    html = logged_in(reviewer).get(reverse("runs:detail", args=[run.pk])).content.decode()
    shown = html[html.index("Timings</dt><dd>"):].split("</dd>", 1)[0]
    assert sorted(shown.removeprefix("Timings</dt><dd>").split(" · ")) == ["extract 12.1s", "load 3.1s", "total 20.5s"]
    assert "extract.tasks" not in html and "merge.bands" not in html


def test_the_run_page_needs_a_reviewer_and_a_get(reviewer, outsider) -> None:  # type: ignore[no-untyped-def]
    run = extracting(done=1, seconds_in=1)
    assert logged_in(outsider).get(reverse("runs:detail", args=[run.pk])).status_code in (403, 404)
    assert logged_in(reviewer).post(reverse("runs:detail", args=[run.pk])).status_code == 405


def test_the_import_page_shows_reading_progress_then_the_pipelines_then_the_new_claims(admin_user) -> None:  # type: ignore[no-untyped-def]
    batch = ImportBatch.objects.create(source="june.csv", status=ImportBatch.Status.IMPORTING, file_size=1000, bytes_read=250, rows_read=40, rows_stored=38)
    ImportBatch.objects.filter(pk=batch.pk).update(created_at=timezone.now() - timedelta(seconds=60))
    client = logged_in(admin_user)
    html = client.get(reverse("articles:detail", args=[batch.pk])).content.decode()
    # 250 bytes a minute so far: the 750 left take three more.
    assert "Reading the file" in html and '<progress max="100" value="25"' in html
    assert "40 rows read, 38 new articles" in html and "Time left: about 3 minutes left" in html

    ImportBatch.objects.filter(pk=batch.pk).update(status=ImportBatch.Status.DONE, bytes_read=1000, finished_at=timezone.now())
    run = PipelineRun.objects.create(
        import_batch=batch, status=PipelineRun.Status.RUNNING, stage="extracting", articles_count=38, articles_done=10,
        claims_count=25, stage_started_at=timezone.now() - timedelta(seconds=10),
    )
    html = client.get(reverse("articles:detail", args=[batch.pk])).content.decode()
    assert 'hx-trigger="every 2s"' in html and "10 of 38 articles extracted · 25 claims so far" in html and "See the" not in html

    found = make_claim(sentence="Rents rose 12% in a year.")
    Claim.objects.filter(pk=found.pk).update(first_run=run)
    PipelineRun.objects.filter(pk=run.pk).update(status=PipelineRun.Status.SUCCEEDED, stage="done", articles_done=38)
    html = client.get(reverse("articles:detail", args=[batch.pk])).content.decode()
    assert "every 2s" not in html
    assert f'href="/claims/?import={batch.pk}"' in html and "See the 1 new claim of this import" in html
    assert shown_ids(client.get(f"/claims/?import={batch.pk}").content.decode()) == [found.pk]


def test_the_runs_list_shows_a_bar_for_each_unfinished_run_and_polls_only_then(reviewer) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    done = PipelineRun.objects.create(status=PipelineRun.Status.SUCCEEDED, stage="done", articles_count=3)
    html = client.get(reverse("runs:list")).content.decode()
    assert "<progress" not in html and "every 3s" not in html
    running = extracting(done=300, seconds_in=60)
    html = client.get(reverse("runs:list")).content.decode()
    assert 'hx-trigger="every 3s"' in html
    assert f'aria-label="Run #{running.pk}: 30% done"' in html and "Extracting claims · 300/1,000 · about" in html
    assert f'aria-label="Run #{done.pk}' not in html
