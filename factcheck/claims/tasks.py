"""Thin Celery tasks: bulk actions too large for a request (the payload is the action's id),
the queue's re-rank after a change of ranking weights (the payload is the weights' version), and
the queue's stored order moved to the new day."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from factcheck.claims.queue import services as queue_services
from factcheck.claims.ranking import services as ranking_services

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,
    soft_time_limit=settings.FACTCHECK_BULK_SOFT_TIME_LIMIT,
    time_limit=settings.FACTCHECK_BULK_TIME_LIMIT,
    ignore_result=True,
)
def bulk_action_run(bulk_action_id: int) -> None:
    # A second delivery finds the action no longer queued and leaves it alone.
    if queue_services.bulk_action_process(bulk_action_id=bulk_action_id) is None:
        logger.info("Bulk action %s is gone or already taken; nothing to do", bulk_action_id)


@shared_task(
    acks_late=True,
    soft_time_limit=settings.FACTCHECK_BULK_SOFT_TIME_LIMIT,
    time_limit=settings.FACTCHECK_BULK_TIME_LIMIT,
    ignore_result=True,
)
def ranking_rerank(weights_version: int) -> None:
    """Re-rank the queue after the weights changed to `weights_version`. Idempotent: it writes
    only the claims whose priority differs from what the current weights give, so a second
    delivery, or one for an older version, writes nothing or catches up with the newest."""
    changed = ranking_services.claims_rerank()
    logger.info("Re-ranked the queue for ranking weights v%s: %s claims changed", weights_version, changed)


@shared_task(acks_late=True, ignore_result=True)
def queue_order_refresh() -> None:
    """Move the queue's stored order to the new day (beat, FACTCHECK_QUEUE_ORDER_BEAT_SECONDS,
    and after each run). Idempotent: the same day again writes nothing."""
    changed = ranking_services.queue_order_refresh()
    logger.info("Queue order refreshed: %s claims re-ranked", changed)
