"""A large bulk action through a real Celery worker, on the test database."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import reverse

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import BulkAction, Claim
from factcheck.claims.queue import services
from tests.conftest import PERSONA_PASSWORD, Worker, route_to_unconsumed_queue
from tests.web.test_queue import make_article, make_claim

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def bulk_worker(transactional_db) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    # Small chunks, so the progress counters move several times.
    worker = Worker(extra_env={"FACTCHECK_BULK_CHUNK": "7"})
    worker.route_here()
    yield worker
    worker.stop()
    route_to_unconsumed_queue()


def wait_for_bulk(pk: int, timeout: float = 90) -> BulkAction:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bulk = BulkAction.objects.get(pk=pk)
        if bulk.status in (BulkAction.Status.DONE, BulkAction.Status.FAILED):
            return bulk
        time.sleep(0.3)
    raise AssertionError(f"Bulk action {pk} did not finish in {timeout}s (status {bulk.status}, {bulk.done}+{bulk.skipped}/{bulk.total})")


def test_large_bulk_dismiss_runs_in_the_worker_with_progress(bulk_worker: Worker, reviewer, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_BULK_INLINE_MAX = 5
    article = make_article()
    dismissable = [make_claim(article, claim_type="numeric") for _ in range(33)]
    approved = [make_claim(article, claim_type="numeric", status="approved") for _ in range(4)]
    untouched = make_claim(article, claim_type="quote")
    client = Client()
    assert client.login(username=reviewer.username, password=PERSONA_PASSWORD)
    # Statuses named, past the default view (open work only), so that the approved four are
    # in the set and the worker has to skip them.
    data = {"action": "dismiss", "scope": "filtered", "filters": "type=numeric&status=new&status=approved", "reason": "Out of scope for this desk"}
    assert "Dismiss 37 claims?" in client.post(reverse("claims:bulk"), data).content.decode()

    response = client.post(reverse("claims:bulk"), {**data, "confirm": "1"})
    bulk = BulkAction.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("claims:bulk_detail", args=[bulk.pk])
    assert bulk.total == 37 and bulk.user == reviewer
    bulk = wait_for_bulk(bulk.pk)

    assert bulk_worker.alive
    assert (bulk.status, bulk.done, bulk.skipped, bulk.error) == ("done", 33, 4, "")
    assert bulk.finished_at is not None
    assert set(Claim.objects.filter(cluster__status="dismissed").values_list("pk", flat=True)) == {c.pk for c in dismissable}
    assert set(Claim.objects.filter(cluster__status="approved").values_list("pk", flat=True)) == {c.pk for c in approved}
    untouched.refresh_from_db()
    assert untouched.cluster.status == "new"
    events = AuditEvent.objects.filter(object_type="claim", actor=reviewer)
    assert events.count() == 33 and {e.object_id for e in events} == {c.pk for c in dismissable}
    assert "bulk_action_run" in bulk_worker.log_path.read_text()

    partial = client.get(reverse("claims:bulk_detail", args=[bulk.pk]), HTTP_HX_REQUEST="true").content.decode()
    assert '<b id="bulk-processed">37</b> of <b>37</b>' in partial and "hx-trigger" not in partial

    # A second delivery of the same message finds nothing to claim and changes nothing.
    assert services.bulk_action_process(bulk_action_id=bulk.pk) is None
    assert AuditEvent.objects.count() == 33
