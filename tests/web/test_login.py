"""Every login is throttled against guessing: per account+address and per address, counted
and checked in one PostgreSQL upsert, on the app's login form and the admin's."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import Client, override_settings
from django.urls import reverse

from tests.conftest import PERSONA_PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def address() -> str:
    return f"test-{uuid.uuid4().hex}"


def attempt(client: Client, username: str, password: str):  # type: ignore[no-untyped-def]
    return client.post(reverse("login"), {"username": username, "password": password})


@override_settings(FACTCHECK_LOGIN_MAX_FAILURES=3)
def test_fourth_guess_is_refused_even_with_the_right_password(reviewer, address: str) -> None:  # type: ignore[no-untyped-def]
    client = Client(REMOTE_ADDR=address)
    for _ in range(3):
        response = attempt(client, reviewer.username, "wrong-password")
        assert response.status_code == 200 and "Please enter a correct username and password" in response.content.decode()
    response = attempt(client, reviewer.username, PERSONA_PASSWORD)
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in client.session
    # Another address is not blocked for the same user.
    assert attempt(Client(REMOTE_ADDR=address + "-other"), reviewer.username, PERSONA_PASSWORD).status_code == 302


@override_settings(FACTCHECK_LOGIN_MAX_FAILURES=3)
def test_success_clears_the_count(reviewer, address: str) -> None:  # type: ignore[no-untyped-def]
    client = Client(REMOTE_ADDR=address)
    for _ in range(2):
        attempt(client, reviewer.username, "wrong-password")
    assert attempt(client, reviewer.username, PERSONA_PASSWORD).status_code == 302
    client.logout()
    for _ in range(2):
        attempt(client, reviewer.username, "wrong-password")
    assert attempt(client, reviewer.username, PERSONA_PASSWORD).status_code == 302


@override_settings(FACTCHECK_LOGIN_MAX_FAILURES=100, FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS=4)
def test_one_address_guessing_many_usernames_is_blocked(reviewer, address: str) -> None:  # type: ignore[no-untyped-def]
    client = Client(REMOTE_ADDR=address)
    for n in range(4):
        attempt(client, f"someone-{n}", "guess")
    assert attempt(client, reviewer.username, PERSONA_PASSWORD).status_code == 429


@override_settings(FACTCHECK_LOGIN_MAX_FAILURES=3)
def test_admin_login_is_throttled_too(admin_user, address: str) -> None:  # type: ignore[no-untyped-def]
    client = Client(REMOTE_ADDR=address)
    for _ in range(3):
        response = client.post("/admin/login/", {"username": admin_user.username, "password": "wrong-password"})
        assert response.status_code == 200 and "Please enter the correct username and password" in response.content.decode()
    response = client.post("/admin/login/?next=/admin/", {"username": admin_user.username, "password": PERSONA_PASSWORD})
    assert response.status_code == 429 and "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in client.session
    # The app's form counts against the same throttle: it is one throttle, in the backend.
    assert attempt(client, admin_user.username, PERSONA_PASSWORD).status_code == 429


@override_settings(FACTCHECK_LOGIN_MAX_FAILURES=100, FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS=4)
def test_people_logging_in_behind_one_address_do_not_lock_each_other_out(reviewer, editor, address: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(6):
        for user in (reviewer, editor):
            client = Client(REMOTE_ADDR=address)
            assert attempt(client, user.username, PERSONA_PASSWORD).status_code == 302
    for n in range(4):
        attempt(Client(REMOTE_ADDR=address), f"someone-{n}", "guess")
    # Over the address's limit, the accounts known at this address keep their own limit (issue
    # 31: a guesser no longer locks out everyone behind the address); a new one is refused.
    assert attempt(Client(REMOTE_ADDR=address), reviewer.username, PERSONA_PASSWORD).status_code == 302
    assert attempt(Client(REMOTE_ADDR=address), "someone-else", "guess").status_code == 429


@override_settings(
    FACTCHECK_LOGIN_MAX_FAILURES=100, FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS=3,
    FACTCHECK_TRUSTED_PROXY_HEADER="HTTP_X_FORWARDED_FOR", FACTCHECK_TRUSTED_PROXY_COUNT=1, FACTCHECK_TRUSTED_PROXIES=frozenset({"10.0.0.1"}),
)
def test_behind_a_proxy_the_address_is_the_one_the_proxy_added(reviewer, address: str) -> None:  # type: ignore[no-untyped-def]
    # Everyone arrives from the proxy's address; the client sends whatever X-Forwarded-For it
    # likes and the proxy appends the address it saw: only that last entry counts.
    for n in range(3):
        client = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}, {address}")
        attempt(client, f"someone-{n}", "guess")
    spoofing = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"203.0.113.9, {address}")
    assert attempt(spoofing, reviewer.username, PERSONA_PASSWORD).status_code == 429
    # Another client behind the same proxy is not blocked.
    elsewhere = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"{address}-other")
    assert attempt(elsewhere, reviewer.username, PERSONA_PASSWORD).status_code == 302


def test_the_cache_is_shared_redis_not_process_memory() -> None:
    backend = caches["default"]
    assert isinstance(backend, RedisCache)
    backend.set("probe", 1, timeout=5)
    assert backend.get("probe") == 1


def test_a_session_is_read_from_the_cache_and_outlives_losing_it(reviewer) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=reviewer.username, password=PERSONA_PASSWORD)
    store = client.session
    assert store.cache_key in caches[settings.SESSION_CACHE_ALIAS]
    caches[settings.SESSION_CACHE_ALIAS].delete(store.cache_key)
    assert client.get(reverse("claims:list")).status_code == 200  # read back from the database
    client.post(reverse("logout"))
    assert store.cache_key not in caches[settings.SESSION_CACHE_ALIAS]
    assert client.get(reverse("claims:list")).status_code == 302


def test_a_role_taken_away_counts_from_the_next_request(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    """The user's role is loaded with the user on every request (UserWithRoleBackend), never kept longer."""
    claim_page = reverse("claims:list")
    client = Client()
    assert client.login(username=editor.username, password=PERSONA_PASSWORD)
    assert "eddie-editor · editor" in client.get(claim_page).content.decode()
    editor.groups.set([Group.objects.get(name="reviewer")])
    assert "eddie-editor · reviewer" in client.get(claim_page).content.decode()
    editor.groups.clear()
    assert client.get(claim_page).status_code == 403
