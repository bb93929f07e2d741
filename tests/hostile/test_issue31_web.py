"""Issue 31, item 7, each as it was found: a PostgreSQL restart answered 500 to the requests in
flight; 30 failed logins from one address locked out everyone there, and behind the project's
own nginx everyone was 127.0.0.1; a SECRET_KEY of `changeme` was accepted at start."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from django.db import close_old_connections, connection
from django.test import Client, override_settings
from django.urls import reverse

from factcheck.runs.spark import database_url_for_job
from tests.conftest import PERSONA_PASSWORD
from tests.web.test_deploy import PRINT_KEY, documented_production_env, run_django


def attempt(client: Client, username: str, password: str):  # type: ignore[no-untyped-def]
    return client.post(reverse("login"), {"username": username, "password": password})


# --- A PostgreSQL restart under a request ---------------------------------------------------------


def terminate_own_backend_on_first_query() -> Callable[..., Any]:
    """An execute wrapper that does what a PostgreSQL restart does to a request in flight:
    the connection is terminated from outside just before the request's first query."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    done = []

    def wrapper(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if not done:
            done.append(True)
            with psycopg.connect(database_url_for_job(), autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", [pid])
        return execute(sql, params, many, context)

    return wrapper


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/claims/", "/api/v1/claims/?limit=200"])
def test_a_request_whose_database_went_away_gets_try_again_not_500(reviewer, path: str) -> None:  # type: ignore[no-untyped-def]
    client = Client(raise_request_exception=False)
    client.force_login(reviewer)
    with connection.execute_wrapper(terminate_own_backend_on_first_query()):
        response = client.get(path)
    assert response.status_code == 503
    assert response["Retry-After"] == "5" and "Try again in a moment" in response.content.decode()
    # The next request reconnects and is answered as usual: Django closes a connection that had
    # errors when a request starts (close_old_connections on request_started, a signal the test
    # client leaves out, so it is called here as a server would).
    close_old_connections()
    assert client.get(path).status_code == 200


@pytest.mark.django_db
def test_other_server_errors_stay_500(reviewer, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from factcheck.claims.queue import views

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(views, "render", broken)
    client = Client(raise_request_exception=False)
    client.force_login(reviewer)
    assert client.get("/claims/").status_code == 500


# --- Login: the client's address through our nginx, a lock per account and address -----------


@pytest.fixture
def address() -> str:
    return f"198.51.100.{uuid.uuid4().int % 250}-{uuid.uuid4().hex[:6]}"


@pytest.mark.django_db
@override_settings(FACTCHECK_LOGIN_MAX_FAILURES=5, FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS=30)
def test_behind_our_nginx_each_client_is_its_own_address(reviewer, address: str) -> None:  # type: ignore[no-untyped-def]
    # nginx connects from loopback and sets X-Real-IP (scripts/nginx.conf.template).
    guesser = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_REAL_IP=address)
    for n in range(30):
        attempt(guesser, f"nobody-{n}", "guess")
    assert attempt(guesser, "nobody-else", "guess").status_code == 429
    colleague = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_REAL_IP=address + "-colleague")
    assert attempt(colleague, reviewer.username, PERSONA_PASSWORD).status_code == 302


@pytest.mark.django_db
@override_settings(FACTCHECK_LOGIN_MAX_FAILURES=5, FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS=30)
def test_thirty_failures_from_one_address_do_not_lock_out_the_accounts_known_there(reviewer, editor, address: str) -> None:  # type: ignore[no-untyped-def]
    for user in (reviewer, editor):
        assert attempt(Client(REMOTE_ADDR=address), user.username, PERSONA_PASSWORD).status_code == 302
    for n in range(30):
        attempt(Client(REMOTE_ADDR=address), f"nobody-{n}", "guess")
    assert attempt(Client(REMOTE_ADDR=address), reviewer.username, PERSONA_PASSWORD).status_code == 302
    # Each known account still has its own lock at that address.
    for _ in range(5):
        attempt(Client(REMOTE_ADDR=address), editor.username, "wrong-password")
    assert attempt(Client(REMOTE_ADDR=address), editor.username, PERSONA_PASSWORD).status_code == 429
    assert attempt(Client(REMOTE_ADDR=address), reviewer.username, PERSONA_PASSWORD).status_code == 302


@pytest.mark.django_db
@override_settings(FACTCHECK_LOGIN_MAX_FAILURES=3)
def test_the_address_header_is_believed_only_from_the_trusted_proxy(reviewer, address: str) -> None:  # type: ignore[no-untyped-def]
    # A client that connects directly and names another address in X-Real-IP each time is
    # still counted at its own address.
    for n in range(3):
        attempt(Client(REMOTE_ADDR=address, HTTP_X_REAL_IP=f"203.0.113.{n}"), reviewer.username, "wrong-password")
    assert attempt(Client(REMOTE_ADDR=address, HTTP_X_REAL_IP="203.0.113.99"), reviewer.username, PERSONA_PASSWORD).status_code == 429


# --- A known-weak SECRET_KEY ---------------------------------------------------------------------


@pytest.mark.parametrize("key", ["changeme", "django-insecure-" + "x1y2z3" * 8, "a" * 60])
def test_production_refuses_a_weak_secret_key_at_start(key: str) -> None:
    env = {**documented_production_env(), "DJANGO_SETTINGS_MODULE": "factcheck.settings", "DJANGO_SECRET_KEY": key}
    result = run_django(env, "-c", PRINT_KEY)
    assert result.returncode != 0 and "DJANGO_SECRET_KEY is " in result.stderr


def test_production_starts_with_a_strong_key_and_debug_with_any() -> None:
    env = {**documented_production_env(), "DJANGO_SETTINGS_MODULE": "factcheck.settings"}
    strong = secrets.token_urlsafe(50)
    assert run_django({**env, "DJANGO_SECRET_KEY": strong}, "-c", PRINT_KEY).stdout.strip() == strong
    debug = run_django({**env, "DJANGO_SECRET_KEY": "changeme", "DJANGO_DEBUG": "1"}, "-c", PRINT_KEY)
    assert debug.returncode == 0 and debug.stdout.strip() == "changeme"
