"""Faults injected into the real path (a Celery worker with its beat, spark-submit, PostgreSQL,
Redis), and what recovery must give: every claim the pipeline finds, each stored once.

Each test prints its figures: claims expected (the command-line pipeline on the same
articles) against claims stored after recovery, duplicates, and the time from the fault to
the finished run. The worker runs with short fault timings (heartbeat 1 s, stale after 5 s,
the reaper every 2 s, the first retry after 1 s) so that recovery takes seconds, not minutes.
Only private servers are ever stopped; the shared PostgreSQL and Redis are left alone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis
from django.db import connection
from django.db.models import Count

from factcheck.articles.seeds import seed_articles
from factcheck.articles.services import articles_import
from factcheck.claims.models import Claim
from factcheck.runs import services
from factcheck.runs.models import PipelineRun
from factcheck.runs.spark import database_url_for_job
from tests.conftest import ROOT, Worker, route_to_unconsumed_queue
from tests.e2e.test_pipeline_e2e import cli_claims, db_claims, free_port
from tests.web.test_run_faults import sending_to

pytestmark = [pytest.mark.e2e, pytest.mark.chaos, pytest.mark.django_db(transaction=True)]

FAULT_TIMINGS = {
    "FACTCHECK_RUN_HEARTBEAT_SECONDS": "1",
    "FACTCHECK_RUN_STALE_SECONDS": "5",
    "FACTCHECK_REAPER_SECONDS": "2",
    "FACTCHECK_RUN_RETRY_SECONDS": "1",
    "FACTCHECK_RUN_MAX_ATTEMPTS": "3",
}


@pytest.fixture
def chaos_worker(transactional_db, tmp_path: Path) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    worker = Worker(extra_env=FAULT_TIMINGS, concurrency=2, beat_schedule=tmp_path / "celerybeat-schedule")
    worker.route_here()
    yield worker
    worker.stop()
    route_to_unconsumed_queue()


def wait_until(condition, *, timeout: float, what: str, interval: float = 0.05):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"Timed out after {timeout}s waiting for {what}")


def run_row(run_id: int) -> PipelineRun:
    return PipelineRun.objects.get(pk=run_id)


def spark_jvm(run_id: int) -> int | None:
    """The driver JVM of a run: spark-submit execs into it, so it is the launcher's child."""
    marker = f"factcheck-run-{run_id}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"java") and marker in argv and b"org.apache.spark.deploy.SparkSubmit" in argv:
            return int(entry.name)
    return None


def parent_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("PPid:"):
            return int(line.split()[1])
    raise AssertionError(f"no parent for {pid}")


def gone(pid: int) -> bool:
    try:
        return "State:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True


def start_run_and_wait_for_spark(*, deliveries: int = 1) -> tuple[PipelineRun, int]:
    run = articles_import(source="seeds", articles=seed_articles()).run
    assert run is not None
    for _ in range(deliveries - 1):
        services.run_send(run_id=run.pk)  # the same task message once more
    jvm = wait_until(lambda: run_row(run.pk).stage == "extracting" and spark_jvm(run.pk), timeout=180, what="the Spark job to extract")
    return run, jvm


def assert_recovered(run_id: int, *, fault_at: float, tmp_path: Path, attempts: int | None, fault: str) -> None:
    run = wait_until(lambda: (r := run_row(run_id)).is_finished and r, timeout=300, what="the run to finish", interval=0.25)
    recovered_in = time.monotonic() - fault_at
    assert run.status == PipelineRun.Status.SUCCEEDED, f"{run.error}\n{run.log_tail}"
    assert attempts is None or run.attempts == attempts
    expected_rows, expected_clusters = cli_claims(tmp_path)
    stored_rows, stored_clusters = db_claims()
    duplicates = Claim.objects.values("article_id", "start_offset", "end_offset").annotate(n=Count("id")).filter(n__gt=1).count()
    with psycopg.connect(database_url_for_job()) as conn:
        staged = conn.execute(
            "SELECT (SELECT count(*) FROM claim_staging WHERE run_id = %(r)s) + (SELECT count(*) FROM claim_cluster_assignments "
            "WHERE run_id = %(r)s) + (SELECT count(*) FROM claim_cluster_remap WHERE run_id = %(r)s)", {"r": run_id}
        ).fetchone()[0]
    print(
        f"\n{fault}: claims expected {len(expected_rows)}, stored {Claim.objects.count()}, duplicates {duplicates}, "
        f"staging rows left {staged}, attempts {run.attempts}, fault to finished run {recovered_in:.1f}s"
    )
    assert stored_rows == expected_rows and stored_clusters == expected_clusters
    assert Claim.objects.count() == len(expected_rows) and duplicates == 0 and staged == 0


def test_a_killed_spark_jvm_is_retried_and_every_claim_is_stored(chaos_worker: Worker, tmp_path: Path) -> None:
    # Two deliveries of the same message: one claims the run, the other finds nothing to do.
    run, jvm = start_run_and_wait_for_spark(deliveries=2)
    assert run_row(run.pk).attempts == 1
    fault_at = time.monotonic()
    os.kill(jvm, signal.SIGKILL)
    failed = wait_until(lambda: (r := run_row(run.pk)).attempts == 1 and r.status == PipelineRun.Status.QUEUED and r, timeout=60, what="the retry")
    assert failed.error.startswith("Attempt 1 of 3 failed: ") and failed.exit_code == -signal.SIGKILL
    assert_recovered(run.pk, fault_at=fault_at, tmp_path=tmp_path, attempts=2, fault="spark JVM SIGKILLed while extracting")


def test_a_killed_pool_child_takes_its_spark_job_along_and_the_reaper_retries_the_run(chaos_worker: Worker, tmp_path: Path) -> None:
    run, jvm = start_run_and_wait_for_spark()
    child = parent_of(jvm)
    fault_at = time.monotonic()
    os.kill(child, signal.SIGKILL)
    # No orphan Spark job goes on writing beside the next attempt.
    wait_until(lambda: gone(jvm), timeout=10, what="the JVM to die with its pool child")
    assert chaos_worker.alive
    reaped = wait_until(lambda: (r := run_row(run.pk)).status == PipelineRun.Status.QUEUED and r, timeout=60, what="the reaper")
    assert "stopped answering" in reaped.error
    assert_recovered(run.pk, fault_at=fault_at, tmp_path=tmp_path, attempts=2, fault="Celery pool child SIGKILLed")


def test_a_killed_worker_main_process_is_replaced_and_the_run_completes(transactional_db, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The Celery main process SIGKILLed mid-run; a new worker on the same queues (what
    scripts/supervise.sh starts) and the reaper finish the job."""
    first = Worker(extra_env=FAULT_TIMINGS, concurrency=2, beat_schedule=tmp_path / "first-schedule")
    first.route_here()
    second = None
    try:
        run, jvm = start_run_and_wait_for_spark()
        fault_at = time.monotonic()
        os.kill(first.process.pid, signal.SIGKILL)
        first.process.wait()
        second = Worker(extra_env=FAULT_TIMINGS, concurrency=2, beat_schedule=tmp_path / "second-schedule", replacing=first)
        # Either the orphaned pool child finishes its attempt, or it dies and the reaper retries.
        assert_recovered(run.pk, fault_at=fault_at, tmp_path=tmp_path, attempts=None, fault="Celery main process SIGKILLed while extracting")
        print(f"  the orphaned Spark JVM {'was still running' if not gone(jvm) else 'was gone'} at the end")
    finally:
        for worker in (first, second):
            if worker is not None:
                worker.stop()
        route_to_unconsumed_queue()


def merge_in_progress() -> bool:
    """A pipeline connection to this database holds the merge's advisory lock (pipeline.merge)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()"
            " AND a.application_name = 'factcheck-pipeline'"
        )
        return bool(cursor.fetchone()[0])


def test_database_connections_killed_mid_merge_the_run_recovers(chaos_worker: Worker, tmp_path: Path) -> None:
    """What a PostgreSQL restart does to a run, without restarting the shared server: every
    connection to this database but the test's own is terminated (the Spark job's, with its
    merge transaction open and claims staged, and the worker's)."""
    run = articles_import(source="seeds", articles=seed_articles()).run
    assert run is not None
    # The merge is one transaction after the clustering, holding the merge lock throughout.
    wait_until(merge_in_progress, timeout=240, what="the merge", interval=0.005)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        own = cursor.fetchone()[0]
    fault_at = time.monotonic()
    with psycopg.connect(database_url_for_job(), autocommit=True) as conn:
        killed = conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid <> %s",
            [own],
        ).fetchone()[0]
    assert killed >= 2
    assert_recovered(run.pk, fault_at=fault_at, tmp_path=tmp_path, attempts=2, fault="database connections terminated while merging")


# --- The broker: queued messages survive a restart of the project-local Redis --------------------


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    port = free_port()
    yield port, tmp_path
    subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True, check=False)


def start_redis(port: int, directory: Path, *args: str) -> None:
    subprocess.run(
        ["redis-server", *args, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(directory), "--daemonize", "yes",
         "--logfile", str(directory / "redis.log")],
        check=True, capture_output=True,
    )
    wait_until(lambda: subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).returncode == 0, timeout=10, what="redis")


@pytest.mark.parametrize("configuration", ["project", "no persistence"])
def test_a_queued_message_survives_a_broker_restart(private_redis: tuple[int, Path], configuration: str, settings) -> None:  # type: ignore[no-untyped-def]
    port, directory = private_redis
    args = [str(ROOT / "scripts" / "redis.conf")] if configuration == "project" else ["--save", "", "--appendonly", "no"]
    start_redis(port, directory, *args)
    settings.CELERY_SPARK_QUEUE = "chaos-spark"
    run = PipelineRun.objects.create(articles_count=1)
    with sending_to(f"redis://127.0.0.1:{port}/0"):
        assert services.run_send(run_id=run.pk)
    client = redis.Redis(port=port)
    assert client.llen("chaos-spark") == 1
    subprocess.run(["redis-cli", "-p", str(port), "shutdown"], check=True, capture_output=True)
    wait_until(lambda: subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).returncode != 0, timeout=10, what="the stop")
    start_redis(port, directory, *args)
    messages = [json.loads(m) for m in client.lrange("chaos-spark", 0, -1)]
    if configuration == "project":
        assert [(m["headers"]["task"], m["headers"]["argsrepr"]) for m in messages] == [("factcheck.runs.tasks.run_pipeline", f"({run.pk},)")]
    else:
        assert messages == []  # how Redis ran before: lost (the reaper sends it again after RESEND_SECONDS)
