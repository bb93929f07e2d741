"""Thin Celery task for imports too large for a request; the payload is the batch id only."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from factcheck.articles import services

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,
    soft_time_limit=settings.FACTCHECK_IMPORT_SOFT_TIME_LIMIT,
    time_limit=settings.FACTCHECK_IMPORT_TIME_LIMIT,
    ignore_result=True,
)
def import_batch_run(batch_id: int) -> None:
    # Safe to deliver twice: a done batch is left alone, a batch another worker holds is
    # skipped, and an interrupted one goes on after its last committed chunk.
    if services.import_batch_process(batch_id=batch_id) is None:
        logger.info("Import %s is being worked on elsewhere; nothing to do", batch_id)
