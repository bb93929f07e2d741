"""Property-based run of the API against its own OpenAPI schema (schemathesis + hypothesis).

Every operation in /api/v1/schema/ is called with generated parameters (filters, cursors,
page sizes, ids) as an authenticated reviewer, in process through the WSGI application, over
a desk of real claims, clusters and verdicts. Each response must not be a server error and
must conform to the schema: a documented status code, the documented content type, and a
body that validates against the documented shape.

The first test fuzzes every parameter, valid and invalid values, the cursor included; since a
random cursor is almost never a valid one, most of its cases stop at the cursor's 400. The
second generates valid values only for the three lists, leaves the cursor out and orders
score_min/score_max and date_from/date_to (rules across parameters that a schema cannot
state), so each of its cases is a query that reaches the database with every filter.

What it found while this was written: a deliberately undeclared null in a response (caught on
every run, by the deterministic coverage cases); a deliberately raw-SQL speaker filter (caught
only on runs whose random strings held a quote or a percent sign: random text rarely does,
which is why test_api.py also sends such strings explicitly).

Bounded for CI: API_FUZZ_EXAMPLES generated cases per operation (default 25) on top of
schemathesis' deterministic coverage cases (boundaries, every enum value, invalid types).
Generation is random, so successive runs explore different inputs; a failure prints the
falsifying request, and `pytest --hypothesis-seed=N` replays a run. API_FUZZ_EXAMPLES=500
explores further.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from factcheck.api.services import api_token_create
from tests.api.conftest import Desk

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "25"))
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance, response_schema_conformance]


@pytest.fixture
def auth_headers(reviewer, desk: Desk) -> dict[str, str]:  # type: ignore[no-untyped-def]
    _, secret = api_token_create(user=reviewer, name="schemathesis")
    return {"Authorization": f"Token {secret}"}


@pytest.fixture
def wsgi_app() -> Iterator[WSGIHandler]:
    """The real WSGI application, keeping the test's database connection (and so its
    transaction and data) across requests, as Django's test client does: the handler would
    otherwise close it when each request finishes."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield WSGIHandler()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def api_schema(wsgi_app: WSGIHandler, auth_headers: dict[str, str]):  # type: ignore[no-untyped-def]
    # The schema as the API serves it, loaded through the app the cases then call.
    return schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", wsgi_app, headers=auth_headers)


def deep_query(ctx, query):  # type: ignore[no-untyped-def]
    """A generated query without a cursor and with its ranges the right way round."""
    if not isinstance(query, dict):
        return query
    query.pop("cursor", None)
    for low, high in (("score_min", "score_max"), ("date_from", "date_to")):
        values = query.get(low), query.get(high)
        if all(isinstance(v, int | float) for v in values) or all(isinstance(v, str) and ISO_DATE.match(v) for v in values):
            query[low], query[high] = min(values), max(values)  # type: ignore[type-var]
    return query


@pytest.fixture
def api_schema_deep(api_schema):  # type: ignore[no-untyped-def]
    api_schema.hook("map_query")(deep_query)
    # Valid values only (the first test covers invalid ones): every case is a query to run.
    api_schema.config.generation.update(modes=["positive"])
    return api_schema


schema = schemathesis.pytest.from_fixture("api_schema")
schema_deep = schemathesis.pytest.from_fixture("api_schema_deep")
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@schema.parametrize()
@FUZZ_SETTINGS
def test_api_conforms_to_its_schema(case, auth_headers: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    case.call_and_validate(headers=auth_headers, checks=CHECKS)


@schema_deep.include(path_regex=r"^/api/v1/(claims|clusters|verdicts)/$").parametrize()
@settings(FUZZ_SETTINGS, max_examples=4 * EXAMPLES)  # three operations, each case a real query
def test_filters_reach_the_database_and_conform(case, auth_headers: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    case.call_and_validate(headers=auth_headers, checks=CHECKS)


def test_object_endpoints_conform_for_stored_objects(api_schema, auth_headers: dict[str, str], desk: Desk) -> None:  # type: ignore[no-untyped-def]
    """Generated ids mostly miss; these are the desk's real objects, validated the same way."""
    for path, pk in [
        ("/api/v1/claims/{id}/", desk.lyons.pk),
        ("/api/v1/claims/{id}/", desk.wu.pk),
        ("/api/v1/clusters/{id}/", desk.cluster.pk),
        ("/api/v1/verdicts/{id}/", desk.approved.pk),
        ("/api/v1/verdicts/{id}/", desk.draft.pk),
    ]:
        case = api_schema[path]["GET"].Case(path_parameters={"id": pk})
        response = case.call_and_validate(headers=auth_headers, checks=CHECKS)
        assert response.status_code == 200, path
