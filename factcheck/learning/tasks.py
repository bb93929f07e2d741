"""The refit task: claim the job row, run the domain's refit, record how it ended."""

from __future__ import annotations

import logging
import traceback

from celery import shared_task
from django.conf import settings

from factcheck.learning import services
from factcheck.learning.registry import refit_for

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.FACTCHECK_REFIT_SOFT_TIME_LIMIT,
    time_limit=settings.FACTCHECK_REFIT_TIME_LIMIT,
    ignore_result=True,
)
def learning_refit(job_id: int) -> None:
    job = services.refit_job_claim(job_id=job_id)
    if job is None:
        logger.info("Refit job %s is gone or already taken; nothing to do", job_id)
        return
    refit = refit_for(job.kind)
    if refit is None:
        services.refit_job_finish(job=job, version=None, error=f"No refit is available for {job.kind} in this worker.")
        return
    try:
        version = refit(by=job.requested_by)
    except Exception as exc:  # the job row must say why, whatever the domain's code raised
        logger.exception("Refit job %s failed", job_id)
        services.refit_job_finish(job=job, version=None, error=f"{exc}\n\n{traceback.format_exc(limit=5)}")
        return
    services.refit_job_finish(job=job, version=version)
