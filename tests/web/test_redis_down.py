"""Redis unreachable (cache and broker pointed at a closed port): pages keep working from
PostgreSQL, and the run and import pages say that queued work waits for the queue.

Personas: reviewer reads the queue and runs; admin imports. Nothing here stops a real Redis.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from redis.exceptions import ConnectionError as RedisConnectionError

from factcheck.articles.models import ImportBatch
from factcheck.articles.services import QUEUE_UNAVAILABLE
from factcheck.claims.models import BulkAction
from factcheck.claims.queue.services import BULK_QUEUE_UNAVAILABLE
from factcheck.runs import services as run_services
from factcheck.runs.models import PipelineRun
from tests.conftest import PERSONA_PASSWORD
from tests.web.test_run_faults import broker_down, closed_port
from tests.workflow.factories import make_claim

pytestmark = pytest.mark.django_db


def cache_at_closed_port(settings, backend: str | None = None) -> None:  # type: ignore[no-untyped-def]
    caches = copy.deepcopy(settings.CACHES)
    for alias in caches.values():
        alias["LOCATION"] = f"redis://127.0.0.1:{closed_port()}/1"
        if backend:
            alias["BACKEND"] = backend
    settings.CACHES = caches  # the cache handler is rebuilt on this setting's change


@pytest.fixture
def redis_down(settings) -> Iterator[None]:  # type: ignore[no-untyped-def]
    cache_at_closed_port(settings)
    with broker_down():
        yield


def test_without_the_fail_soft_cache_redis_down_is_a_500(settings, reviewer) -> None:  # type: ignore[no-untyped-def]
    """The fault as it was: cached_db sessions over a cache that raises (a login writes the session)."""
    cache_at_closed_port(settings, backend="django.core.cache.backends.redis.RedisCache")
    with pytest.raises(RedisConnectionError):
        Client().post(reverse("login"), {"username": reviewer.username, "password": PERSONA_PASSWORD})


def test_login_and_pages_work_while_redis_is_down(redis_down, reviewer) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("login"), {"username": reviewer.username, "password": PERSONA_PASSWORD})
    assert response.status_code == 302
    make_claim(assignee=reviewer, status="check")
    for name in ("claims:list", "runs:list"):
        page = client.get(reverse(name))
        # The navigation's counts, cached in Redis when it is up, are counted afresh.
        assert page.status_code == 200 and "data-my-claims-left>1 left<" in page.content.decode(), name
    client.post(reverse("logout"))
    assert client.get(reverse("claims:list")).status_code == 302  # logged out: the session is gone from PostgreSQL


def test_a_session_from_before_the_outage_goes_on(settings, reviewer) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=reviewer.username, password=PERSONA_PASSWORD)
    assert client.get(reverse("claims:list")).status_code == 200
    cache_at_closed_port(settings)
    page = client.get(reverse("claims:list"))
    assert page.status_code == 200 and reviewer.username in page.content.decode()


def test_an_import_while_the_queue_is_down_says_so_and_is_sent_later(  # type: ignore[no-untyped-def]
    settings, admin_user, django_capture_on_commit_callbacks, caplog
) -> None:
    client = Client()
    assert client.login(username=admin_user.username, password=PERSONA_PASSWORD)
    cache_at_closed_port(settings)
    with broker_down():
        with django_capture_on_commit_callbacks(execute=True) as sent_after_commit:
            response = client.post(reverse("articles:paste"), {"text": "Crime fell 12% last year, the mayor said."})
        assert response.status_code == 302 and len(sent_after_commit) == 1
        assert "Could not send factcheck.runs.tasks.run_pipeline" in caplog.text
        run = PipelineRun.objects.get()
        assert run.status == PipelineRun.Status.QUEUED and run.waiting_for_queue
        page = client.get(response["Location"])
        assert page.status_code == 200 and "the task queue is unavailable" in page.content.decode().lower()
        assert "queue unavailable" in client.get(reverse("runs:list")).content.decode()
        assert "The task queue is unavailable" in client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert run_services.runs_reap().sent == [run.pk]
    run.refresh_from_db()
    assert not run.waiting_for_queue and run.enqueued_at is not None


def test_a_large_upload_while_the_queue_is_down_waits_for_it(  # type: ignore[no-untyped-def]
    settings, admin_user, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    settings.FACTCHECK_UPLOAD_DIR = tmp_path / "uploads"
    settings.FACTCHECK_IMPORT_INLINE_MAX_BYTES = 10
    client = Client()
    assert client.login(username=admin_user.username, password=PERSONA_PASSWORD)
    with broker_down():
        upload = SimpleUploadedFile("news.csv", b"text\nCrime fell 12% last year.\n", content_type="text/csv")
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("articles:upload"), {"file": upload})
        assert response.status_code == 302
        batch = ImportBatch.objects.get()
        assert (batch.status, batch.error) == (ImportBatch.Status.QUEUED, QUEUE_UNAVAILABLE)
        assert QUEUE_UNAVAILABLE in client.get(response["Location"]).content.decode()
        assert run_services.runs_reap().imports_sent == []
    assert run_services.runs_reap().imports_sent == [batch.pk]
    batch.refresh_from_db()
    assert (batch.status, batch.error) == (ImportBatch.Status.QUEUED, "")


def test_a_bulk_action_while_the_queue_is_down_waits_for_it(  # type: ignore[no-untyped-def]
    settings, reviewer, django_capture_on_commit_callbacks
) -> None:
    settings.FACTCHECK_BULK_INLINE_MAX = 1
    for _ in range(2):
        make_claim(claim_type="numeric")
    client = Client()
    assert client.login(username=reviewer.username, password=PERSONA_PASSWORD)
    data = {"action": "dismiss", "scope": "filtered", "filters": "type=numeric", "reason": "Out of scope", "confirm": "1"}
    with broker_down():
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("claims:bulk"), data)
        bulk = BulkAction.objects.get()
        assert response.status_code == 302 and (bulk.status, bulk.error) == (BulkAction.Status.QUEUED, BULK_QUEUE_UNAVAILABLE)
        assert BULK_QUEUE_UNAVAILABLE in client.get(response["Location"]).content.decode()
    assert run_services.runs_reap().bulk_actions_sent == [bulk.pk]
    bulk.refresh_from_db()
    assert (bulk.status, bulk.error) == (BulkAction.Status.QUEUED, "")


def test_a_session_is_cached_for_minutes_not_for_its_whole_age(settings, reviewer) -> None:  # type: ignore[no-untyped-def]
    """A logout while Redis is unreachable leaves the session in Redis: it must not live there
    for the session's two weeks."""
    client = Client()
    assert client.login(username=reviewer.username, password=PERSONA_PASSWORD)
    cache = caches[settings.SESSION_CACHE_ALIAS]
    ttl = cache._cache.get_client(write=False).ttl(cache.make_and_validate_key(client.session.cache_key))
    assert settings.SESSION_COOKIE_AGE > settings.FACTCHECK_SESSION_CACHE_SECONDS >= ttl > 0
