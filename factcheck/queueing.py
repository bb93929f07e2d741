"""Sending task messages so that a broker outage costs a delay, never a page or a row.

Every task's state lives in PostgreSQL (a queued run, a queued import); the message only
wakes a worker. So a message that cannot be sent is logged and left to the reaper
(factcheck.runs.services.runs_reap), which sends it again once the broker answers.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from celery import Task
from django.db.models import QuerySet
from kombu.exceptions import OperationalError

logger = logging.getLogger(__name__)

BROKER_ERRORS = (OperationalError, OSError)


def task_send(task: Task, *, args: Sequence[object], queue: str) -> bool:
    """Send one task message; False when the broker is unreachable."""
    try:
        task.apply_async(args=tuple(args), queue=queue)
    except BROKER_ERRORS as exc:
        logger.warning("Could not send %s%r to %s (%s); the reaper will send it later", task.name, tuple(args), queue, exc)
        return False
    return True



# Imports and bulk actions: a queued row with an `error` text says that its message is not
# sent yet, and the reaper (factcheck.runs.services.runs_reap) sends it.


def queued_row_send(task: Task, *, queued: QuerySet[Any], pk: int, queue: str, unavailable: str) -> bool:
    """Send `task(pk)` for a row of `queued` (its still-queued rows); when the broker is
    unreachable the row's error says `unavailable` until a send succeeds."""
    sent = task_send(task, args=(pk,), queue=queue)
    queued.filter(pk=pk).update(error="" if sent else unavailable)
    return sent


def queued_rows_resend(task: Task, *, queued: QuerySet[Any], queue: str, unavailable: str) -> list[int]:
    """Send the queued rows whose message could not be sent, oldest first; stop at the first
    failure (the broker is still down)."""
    sent: list[int] = []
    for pk in queued.filter(error=unavailable).order_by("created_at").values_list("pk", flat=True):
        if not queued_row_send(task, queued=queued, pk=pk, queue=queue, unavailable=unavailable):
            break
        sent.append(pk)
    return sent
