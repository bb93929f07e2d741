"""Thin Celery tasks for sources and pasted links; payloads are ids only."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from factcheck.sources import services

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def sources_poll_due() -> None:
    """Celery beat runs this every FACTCHECK_SOURCES_BEAT_SECONDS: due sources get their poll,
    and pasted links whose message could not be sent get it."""
    services.sources_due_send()
    services.links_resend()


@shared_task(
    acks_late=True,
    soft_time_limit=settings.FACTCHECK_SOURCE_POLL_SOFT_TIME_LIMIT,
    time_limit=settings.FACTCHECK_SOURCE_POLL_TIME_LIMIT,
    ignore_result=True,
)
def source_poll_run(source_id: int) -> None:
    # Safe to deliver twice: a source being polled is claimed once (polling_since).
    if services.source_poll(source_id=source_id) is None:
        logger.info("Source %s is gone, disabled or being polled; nothing to do", source_id)


@shared_task(acks_late=True, ignore_result=True)
def link_fetch(link_id: int) -> None:
    # Safe to deliver twice: only a queued link is claimed.
    services.link_process(link_id=link_id)
