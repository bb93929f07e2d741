import pytest

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.runs import services, tasks
from factcheck.runs.models import PipelineRun
from factcheck.runs.spark import summarise_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def run() -> PipelineRun:
    article, _ = article_ingest(data=ArticleInput(text="ICE detained nearly 1,500 people."), batch=None)
    return services.run_create(article_ids=[article.pk])


def test_run_is_claimed_exactly_once(run: PipelineRun) -> None:
    assert services.run_claim(run_id=run.pk, worker="w1", spark_master="local[*]") == 1
    assert services.run_claim(run_id=run.pk, worker="w2", spark_master="local[*]") is None
    run.refresh_from_db()
    assert (run.status, run.worker, run.stage) == (PipelineRun.Status.RUNNING, "w1", "submitting")


def test_second_delivery_does_nothing(run: PipelineRun) -> None:
    services.run_claim(run_id=run.pk, worker="w1", spark_master="local[*]")
    tasks.run_pipeline.apply(args=(run.pk,))  # would launch Spark if it claimed the run
    run.refresh_from_db()
    assert run.status == PipelineRun.Status.RUNNING and run.exit_code is None and run.worker == "w1"


def test_task_for_a_deleted_run_returns_quietly() -> None:
    tasks.run_pipeline.apply(args=(987654,)).get()


def test_run_finish_records_failure_after_the_last_attempt(run: PipelineRun, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_RUN_MAX_ATTEMPTS = 1
    attempt = services.run_claim(run_id=run.pk, worker="w1", spark_master="local[*]")
    services.run_finish(run_id=run.pk, attempt=attempt, exit_code=1, log_tail="boom\n", error="RuntimeError: boom")
    run.refresh_from_db()
    assert (run.status, run.exit_code, run.stage, run.error) == (PipelineRun.Status.FAILED, 1, "failed", "RuntimeError: boom")


def test_run_needs_articles() -> None:
    with pytest.raises(ValueError):
        services.run_create(article_ids=[])


def test_error_summary_prefers_the_exception_line() -> None:
    log = ["INFO starting\n", "Traceback (most recent call last):\n", "  File x\n", "RuntimeError: simulated\n", "INFO shutdown hook\n"]
    assert summarise_error(log, 1) == "RuntimeError: simulated (spark-submit exit code 1)"
    assert summarise_error(["nothing useful\n"], 137) == "spark-submit exited with code 137"
