"""Thin Celery tasks: claim the row, launch Spark outside any transaction, record the end."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable
from typing import TypeVar

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection

from factcheck.runs import services, spark

logger = logging.getLogger(__name__)

T = TypeVar("T")
# Seconds between tries at a database write the run's state depends on: about a minute in
# all, the time a PostgreSQL restart or fail-over takes.
DATABASE_RETRY_WAITS = (0.5, 1, 2, 4, 8, 16, 30)


def with_database(write: Callable[[], T], *, what: str, waits: tuple[float, ...] = DATABASE_RETRY_WAITS) -> T:
    """Run a database write, reconnecting when the connection is gone: a long spark-submit
    outlives connections (a PostgreSQL restart, an idle timeout) that Django checks only at
    the start of a task. Only connection errors are retried; the last one raises."""
    for wait in (*waits, None):
        try:
            return write()
        except (OperationalError, InterfaceError):
            if wait is None:
                raise
            logger.warning("Database write failed (%s); reconnecting in %ss", what, wait, exc_info=True)
            connection.close()
            time.sleep(wait)
    raise AssertionError("unreachable")


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.SPARK_SOFT_TIME_LIMIT,
    time_limit=settings.SPARK_TIME_LIMIT,
    ignore_result=True,
)
def run_pipeline(run_id: int) -> None:
    worker = f"{socket.gethostname()}"
    attempt = services.run_claim(run_id=run_id, worker=worker, spark_master=settings.SPARK_MASTER)
    if attempt is None:
        logger.info("Run %s is gone, already claimed or not due; nothing to do", run_id)
        return

    def still_ours() -> bool:
        # A database that does not answer is no reason to stop Spark: only a run that is
        # provably someone else's now is.
        try:
            return services.run_heartbeat(run_id=run_id, attempt=attempt)
        except DatabaseError:
            logger.warning("Heartbeat for run %s failed; reconnecting", run_id, exc_info=True)
            connection.close()
            return True

    def finish(*, exit_code: int, log_tail: str, error: str, retry: bool = True) -> None:
        with_database(
            lambda: services.run_finish(run_id=run_id, attempt=attempt, exit_code=exit_code, log_tail=log_tail, error=error, retry=retry),
            what=f"finishing run {run_id}",
        )

    try:
        result = spark.submit(run_id=run_id, heartbeat=still_ours, heartbeat_seconds=settings.FACTCHECK_RUN_HEARTBEAT_SECONDS)
    except SoftTimeLimitExceeded:
        finish(exit_code=-1, log_tail="", error="Time limit exceeded; spark-submit was stopped.", retry=False)
        raise
    except Exception as exc:  # noqa: BLE001 - any launch failure must end the run, not strand it
        logger.exception("Could not launch Spark for run %s", run_id)
        finish(exit_code=-1, log_tail="", error=f"Could not launch spark-submit: {exc}")
        return
    finish(exit_code=result.exit_code, log_tail=result.log_tail, error=result.error)


@shared_task(ignore_result=True)
def runs_reap() -> None:
    """Celery beat runs this every FACTCHECK_REAPER_SECONDS (see services.runs_reap)."""
    services.runs_reap()


@shared_task(acks_late=True, ignore_result=True)
def search_indexes_settle() -> None:
    """After each run: what its merge left pending in the claims' search indexes, flushed into
    them, and its claims' pages marked all-visible (services.search_indexes_settle).
    Idempotent; lost, autovacuum does the same later."""
    flushed = services.search_indexes_settle()
    logger.info("Search indexes settled: %s pending pages flushed", sum(flushed.values()))
