"""Thin Celery tasks: claim the row, launch Spark outside any transaction, record the end."""

from __future__ import annotations

import logging
import socket

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from factcheck.runs import services, spark

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,
    soft_time_limit=settings.SPARK_SOFT_TIME_LIMIT,
    time_limit=settings.SPARK_TIME_LIMIT,
    ignore_result=True,
)
def run_pipeline(run_id: int) -> None:
    worker = f"{socket.gethostname()}"
    if not services.run_claim(run_id=run_id, worker=worker, spark_master=settings.SPARK_MASTER):
        logger.info("Run %s is gone or already claimed; nothing to do", run_id)
        return
    try:
        result = spark.submit(run_id=run_id)
    except SoftTimeLimitExceeded:
        services.run_finish(run_id=run_id, exit_code=-1, log_tail="", error="Time limit exceeded; spark-submit was stopped.")
        raise
    except Exception as exc:  # noqa: BLE001 - any launch failure must end the run, not strand it
        logger.exception("Could not launch Spark for run %s", run_id)
        services.run_finish(run_id=run_id, exit_code=-1, log_tail="", error=f"Could not launch spark-submit: {exc}")
        return
    services.run_finish(run_id=run_id, exit_code=result.exit_code, log_tail=result.log_tail, error=result.error)
