"""Sending task messages so that a broker outage costs a delay, never a page or a row.

Every task's state lives in PostgreSQL (a queued run, a queued import); the message only
wakes a worker. So a message that cannot be sent is logged and left to the reaper
(factcheck.runs.services.runs_reap), which sends it again once the broker answers.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from celery import Task
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

