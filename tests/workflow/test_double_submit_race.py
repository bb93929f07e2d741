"""The same note form sent twice at the same moment: the claim's lock makes the second wait
and find the first, so one note is stored."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from factcheck.claims.models import Annotation
from factcheck.claims.workflow import services
from tests.workflow.factories import make_claim

pytestmark = pytest.mark.django_db(transaction=True)


def test_simultaneous_copies_of_one_submission_store_one_note(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    key = uuid.uuid4()
    start = threading.Barrier(4)

    def submit(_: int) -> int:
        start.wait()
        try:
            return services.annotation_add(claim=claim, actor=reviewer, body="Asked ICE.", submission_key=key).pk
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=4) as pool:
        ids = set(pool.map(submit, range(4)))
    assert len(ids) == 1 and Annotation.objects.filter(claim=claim).count() == 1
