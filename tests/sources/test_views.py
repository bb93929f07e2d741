"""The sources pages and the pasted-link pages: personas, methods, side effects."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from factcheck.accounts.roles import Role
from factcheck.accounts.services import user_create_with_role
from factcheck.articles.models import Article
from factcheck.sources.models import LinkSubmission, Source
from tests.conftest import PERSONA_PASSWORD
from tests.sources import pages
from tests.sources.newsserver import NewsServer


def _client(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


@pytest.mark.django_db
def test_the_source_pages_show_success_error_rate_next_poll_and_backoff(reviewer, outsider, django_assert_max_num_queries) -> None:
    source = pages.a_source()
    client = _client(reviewer)
    with django_assert_max_num_queries(12):
        listing = client.get(reverse("sources:list"))
    assert listing.status_code == 200 and b"News Example" in listing.content and b"backing off" in listing.content
    detail = client.get(reverse("sources:detail", args=[source.pk]))
    text = detail.content.decode()
    assert detail.status_code == 200
    for marker in ("source-last-success", "source-last-error", "source-per-day", "source-next-poll", "source-backoff", "answered 503"):
        assert marker in text
    assert "Poll now" not in text  # a reviewer reads; only admins act
    assert _client(outsider).get(reverse("sources:list")).status_code == 403
    assert client.post(reverse("sources:list")).status_code == 405
    assert client.get(reverse("sources:detail", args=[999_999])).status_code == 404


@pytest.mark.django_db
def test_poll_now_is_for_admins(reviewer, admin_user) -> None:
    source = pages.a_source()
    assert _client(reviewer).post(reverse("sources:poll", args=[source.pk])).status_code == 403
    client = _client(admin_user)
    assert client.get(reverse("sources:poll", args=[source.pk])).status_code == 405
    response = client.post(reverse("sources:poll", args=[source.pk]))
    assert response.status_code == 302
    source.refresh_from_db()
    assert source.next_poll_at is not None and source.enabled


@pytest.mark.usefixtures("fast_fetch")
def test_a_reviewer_pastes_a_link_and_follows_it(site: NewsServer, reviewer, editor, outsider, django_capture_on_commit_callbacks) -> None:
    from factcheck.sources import services

    client = _client(reviewer)
    assert client.get(reverse("sources:link_new")).status_code == 200
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(reverse("sources:link_submit"), {"url": f"{site.base_url}/news/90"})
    assert response.status_code == 302
    link = LinkSubmission.objects.get()
    assert link.created_by == reviewer and link.status == LinkSubmission.Status.QUEUED
    assert len(callbacks) == 1  # the fetch is sent once the link is committed
    page = client.get(reverse("sources:link_detail", args=[link.pk]))
    assert b"Waiting for a worker" in page.content and b'hx-trigger="every 2s"' in page.content
    services.link_process(link_id=link.pk)
    page = client.get(reverse("sources:link_detail", args=[link.pk]), headers={"HX-Request": "true"})
    assert page.status_code == 200 and site.state.stories[90].title.encode() in page.content.replace(b"&#x27;", b"'")
    # Another reviewer does not see it; an editor does.
    other = user_create_with_role(username="rory-reviewer", role=Role.REVIEWER, password=PERSONA_PASSWORD)[0]
    assert _client(other).get(reverse("sources:link_detail", args=[link.pk])).status_code == 404
    assert _client(editor).get(reverse("sources:link_detail", args=[link.pk])).status_code == 200
    assert _client(outsider).post(reverse("sources:link_submit"), {"url": f"{site.base_url}/news/91"}).status_code == 403
    assert client.get(reverse("sources:link_submit")).status_code == 405
    assert LinkSubmission.objects.count() == 1 and Article.objects.count() == 1


@pytest.mark.usefixtures("fast_fetch")
@pytest.mark.parametrize("url", ["http://127.0.0.1/admin/", "http://169.254.169.254/latest/meta-data/", "ftp://example.org/x", "not a link"])
def test_a_pasted_private_or_bad_link_is_refused_with_the_reason(reviewer, url: str) -> None:
    response = _client(reviewer).post(reverse("sources:link_submit"), {"url": url})
    assert response.status_code == 400
    assert any(reason in response.content for reason in (b"public address", b"valid URL", b"Only http and https"))
    assert not LinkSubmission.objects.exists()


@pytest.mark.django_db
def test_sources_are_added_in_the_admin(admin_user) -> None:
    client = _client(admin_user)
    response = client.post(
        reverse("admin:sources_source_add"),
        {"name": " Daily  News ", "kind": "feed", "url": "https://daily.example/rss", "enabled": "on", "poll_minutes": 15, "max_items": 50},
    )
    assert response.status_code == 302, response.content[:2000]
    source = Source.objects.get()
    assert source.poll_minutes == 15 and source.next_poll_at is None  # due at once
