"""Thin Celery tasks: imports too large for a request (payload: the import id) and matching
new library fact-checks against the queue (payload: their ids)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from factcheck.factchecks import services

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,
    soft_time_limit=settings.FACTCHECK_IMPORT_SOFT_TIME_LIMIT,
    time_limit=settings.FACTCHECK_IMPORT_TIME_LIMIT,
    ignore_result=True,
)
def factcheck_import_run(import_id: int) -> None:
    # Safe to deliver twice: a done import is left alone, one another worker holds is
    # skipped, and an interrupted one goes on after its last committed chunk.
    if services.factcheck_import_process(import_id=import_id) is None:
        logger.info("Fact-check import %s is being worked on elsewhere; nothing to do", import_id)


@shared_task(
    acks_late=True,
    soft_time_limit=settings.FACTCHECK_IMPORT_SOFT_TIME_LIMIT,
    time_limit=settings.FACTCHECK_IMPORT_TIME_LIMIT,
    ignore_result=True,
)
def factchecks_match_new(factcheck_ids: list[int]) -> None:
    # Safe to deliver twice: only entries still pending are matched (each cleared once it is),
    # stored matches are upserted and reviewers' decisions never overwritten. A message lost
    # before it got here is sent again by the reaper (services.factchecks_match_resend).
    written = services.factchecks_match_new(factcheck_ids=factcheck_ids)
    logger.info("Matched %s new fact-checks against the queue: %s matches written", len(factcheck_ids), written)
