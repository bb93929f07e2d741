"""Shared fixtures: personas, a local SparkSession, a real Celery worker on the test database."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from django.conf import settings

from factcheck.accounts.roles import Role
from factcheck.accounts.services import user_create_with_role

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
PERSONA_PASSWORD = "correct-horse-battery-staple"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The fault-injecting end-to-end tests run last: what they kill (PostgreSQL backends,
    workers, Spark jobs) once reached a browser test that ran after them in the full suite."""
    items.sort(key=lambda item: item.get_closest_marker("chaos") is not None and item.get_closest_marker("e2e") is not None)


@pytest.fixture(autouse=True)
def _no_dead_database_connection() -> None:
    """The fault tests terminate PostgreSQL backends (tests/e2e/test_chaos.py,
    tests/web/test_run_faults.py): a connection of this process that died with them is closed
    here, so the next test opens a fresh one instead of failing on the corpse."""
    from django.db import connections

    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.in_atomic_block and not connection.is_usable():
            connection.close()


@pytest.fixture(autouse=True)
def _queue_counts_from_this_test() -> None:
    """Counts cached under QUEUE_CHANGES (the queue's and the navigation's) live in Redis,
    which a test's rolled-back transaction does not reach: each test starts a new generation,
    so none is read back from another test's data."""
    from factcheck.cache import QUEUE_CHANGES

    QUEUE_CHANGES.bump()


# The organisation's public site. The organisation is seeded from these settings on its
# first read in a test (factcheck/publishing/services.py): a real one, so the exports carry
# no demo flag; tests of the demo set FACTCHECK_ORG_URL back to "".
TEST_ORG_URL = "https://desk.factcheck.test/"


@pytest.fixture(autouse=True)
def _organisation(settings) -> None:  # type: ignore[no-untyped-def]
    from factcheck.publishing.selectors import ORGANISATION_CHANGES

    settings.FACTCHECK_ORG_URL = TEST_ORG_URL
    # The banner's cached copy lives in Redis, which a rolled-back test does not reach.
    ORGANISATION_CHANGES.bump()


# --- Personas: who they are and what they may do --------------------------------------------
# reviewer: sees and triages claims.  editor: reviewer + approves.  admin: everything.
# outsider: a logged-in account with no role: 404 for objects, 403 for actions.


def queue_order_day(moment: datetime) -> None:
    """Have the queue's stored order count recency back from `moment`'s UTC day with the default
    weights (as the beat task's refresh would have that day), before the test's claims are made."""
    from factcheck.claims.models import QueueOrderBasis

    day = (moment.astimezone(UTC).date() - date(1970, 1, 1)).days
    QueueOrderBasis.objects.update_or_create(id=1, defaults={"day": day, "weight": 10.0, "half_life_days": 7.0})


@pytest.fixture
def reviewer(db):  # type: ignore[no-untyped-def]
    return user_create_with_role(username="rita-reviewer", role=Role.REVIEWER, password=PERSONA_PASSWORD)[0]


@pytest.fixture
def editor(db):  # type: ignore[no-untyped-def]
    return user_create_with_role(username="eddie-editor", role=Role.EDITOR, password=PERSONA_PASSWORD)[0]


@pytest.fixture
def admin_user(db):  # type: ignore[no-untyped-def]
    return user_create_with_role(username="ada-admin", role=Role.ADMIN, password=PERSONA_PASSWORD)[0]


@pytest.fixture
def outsider(db, django_user_model):  # type: ignore[no-untyped-def]
    user = django_user_model(username="oscar-outsider")
    user.set_password(PERSONA_PASSWORD)
    user.save()
    return user


# --- Spark ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def spark():  # type: ignore[no-untyped-def]
    from pyspark.sql import SparkSession

    # py4j logs from __del__ at interpreter exit, after pytest closed the streams.
    logging.getLogger("py4j").setLevel(logging.WARNING)

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYARROW_IGNORE_TIMEZONE", "1")
    session = (
        SparkSession.builder.master("local[1]")
        .appName("factcheck-tests")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    yield session
    session.stop()


# --- A real Celery worker --------------------------------------------------------------------


class Worker:
    """A `celery worker` subprocess consuming private queues, against the test database."""

    def __init__(
        self, *, extra_env: dict[str, str] | None = None, concurrency: int = 1, beat_schedule: Path | None = None,
        replacing: Worker | None = None,
    ) -> None:
        """`replacing`: consume the queues of that (dead) worker, as its restart would."""
        from factcheck.runs.spark import database_url_for_job

        suffix = uuid.uuid4().hex[:8]
        self.default_queue = replacing.default_queue if replacing else f"test-default-{suffix}"
        self.spark_queue = replacing.spark_queue if replacing else f"test-spark-{suffix}"
        self.log_path = ROOT / ".var" / "log" / f"test-worker-{suffix}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "DATABASE_URL": database_url_for_job(),
            "CELERY_DEFAULT_QUEUE": self.default_queue,
            "CELERY_SPARK_QUEUE": self.spark_queue,
            "PYSPARK_PYTHON": sys.executable,
            **(extra_env or {}),
        }
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "factcheck", "worker", "--loglevel=INFO",
                f"--concurrency={concurrency}", "--pool=prefork", "-Q", f"{self.default_queue},{self.spark_queue}",
                "--hostname", f"test-{suffix}@%h", "--without-gossip", "--without-mingle",
                # Embedded Celery beat: the reaper on its schedule, as `make up` runs it.
                *(["--beat", "--schedule", str(beat_schedule)] if beat_schedule else []),
            ],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
            # Its own process group, so stop() reaches pool children that outlive a killed main process.
            start_new_session=True,
        )
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Celery worker exited early:\n{self.log_path.read_text()}")
            if b" ready." in self.log_path.read_bytes():
                return
            time.sleep(0.2)
        raise RuntimeError(f"Celery worker not ready after {timeout}s:\n{self.log_path.read_text()}")

    def route_here(self) -> None:
        """Send this process's tasks to this worker's private queues."""
        settings.CELERY_TASK_DEFAULT_QUEUE = self.default_queue
        settings.CELERY_SPARK_QUEUE = self.spark_queue

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.alive:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # Pool children orphaned by a SIGKILLed main process (tests/e2e/test_chaos.py) live on
        # otherwise, holding connections to the test database until the run ends.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()


UNCONSUMED_QUEUE = f"test-unconsumed-{uuid.uuid4().hex[:8]}"


def route_to_unconsumed_queue() -> None:
    settings.CELERY_TASK_DEFAULT_QUEUE = UNCONSUMED_QUEUE
    settings.CELERY_SPARK_QUEUE = UNCONSUMED_QUEUE


@pytest.fixture(scope="session", autouse=True)
def isolated_celery_queues() -> Iterator[None]:
    """Tests never feed the real queues: a `make up` worker there would act on the wrong
    database. Only a test's own worker consumes what that test enqueues."""
    route_to_unconsumed_queue()
    yield
    import redis

    redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(UNCONSUMED_QUEUE)


@pytest.fixture
def celery_worker(transactional_db) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    worker = Worker()
    worker.route_here()
    yield worker
    worker.stop()
    route_to_unconsumed_queue()


def wait_for_run(run_id: int, timeout: float = 240) -> object:
    from factcheck.runs.models import PipelineRun

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = PipelineRun.objects.get(pk=run_id)
        if run.is_finished:
            return run
        time.sleep(0.5)
    raise AssertionError(f"Run {run_id} did not finish in {timeout}s (status {run.status}, stage {run.stage})")
