"""API rate limits: per user (token or session), answered 429 with Retry-After."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

from tests.api.conftest import token_client
from tests.conftest import PERSONA_PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def fresh_counts(reviewer, editor):  # type: ignore[no-untyped-def]
    # DRF keeps its counts in the shared cache, keyed by user id; ids repeat between test runs.
    keys = [f"throttle_api-user_{user.pk}" for user in (reviewer, editor)]
    cache.delete_many(keys)
    yield
    cache.delete_many(keys)


@override_settings(FACTCHECK_API_RATE_USER="3/minute")
def test_a_user_past_the_rate_gets_429_and_others_do_not(reviewer, editor, fresh_counts) -> None:  # type: ignore[no-untyped-def]
    client = token_client(reviewer)
    assert [client.get("/api/v1/claims/").status_code for _ in range(3)] == [200, 200, 200]
    refused = client.get("/api/v1/claims/")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert refused.json()["detail"].startswith("Request was throttled")
    # The same user's browser session shares the count; another user has their own.
    session = Client()
    assert session.login(username=reviewer.username, password=PERSONA_PASSWORD)
    assert session.get("/api/v1/claims/").status_code == 429
    assert token_client(editor).get("/api/v1/claims/").status_code == 200


@override_settings(FACTCHECK_API_RATE_ANON="2/minute")
def test_anonymous_requests_and_bad_tokens_meet_the_limit_before_their_401(reviewer, fresh_counts) -> None:  # type: ignore[no-untyped-def]
    assert Client().get("/api/v1/claims/").status_code == 401
    assert Client(HTTP_AUTHORIZATION="Token fct_not-a-token").get("/api/v1/claims/").status_code == 401
    for client in (Client(), Client(HTTP_AUTHORIZATION="Token fct_not-a-token")):
        refused = client.get("/api/v1/claims/")
        assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    # A valid token from the same address is counted per user, not per address.
    assert token_client(reviewer).get("/api/v1/claims/").status_code == 200


def test_the_schema_documents_429_on_every_endpoint(reviewer, fresh_counts) -> None:  # type: ignore[no-untyped-def]
    schema = token_client(reviewer).get("/api/v1/schema/?format=json").json()
    operations = [operation for path in schema["paths"].values() for operation in path.values()]
    assert operations and all("429" in operation["responses"] for operation in operations)
