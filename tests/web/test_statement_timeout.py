"""The web's statement timeout: a request's query stops after FACTCHECK_WEB_STATEMENT_TIMEOUT_SECONDS
instead of running on in PostgreSQL after gunicorn has killed its worker (a metadata query on
a million claims ran 48 minutes after its clients had gone); workers are not limited."""

from __future__ import annotations

import os
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client

from factcheck.settings import database_from_url
from tests.web.test_deploy import run_django
from tests.web.test_settings import DJANGO_OPTIONS

SHOW_TIMEOUT = (
    "import django; django.setup(); from django.db import connection; cursor = connection.cursor(); "
    "cursor.execute('SHOW statement_timeout'); print(cursor.fetchone()[0])"
)


def test_a_statement_timeout_goes_into_the_connection_options() -> None:
    limited = database_from_url("postgresql://db/x", statement_timeout_seconds=25)
    assert limited["OPTIONS"] == {"options": "-c jit=off -c statement_timeout=25000", **DJANGO_OPTIONS}
    assert database_from_url("postgresql://db/x")["OPTIONS"] == {"options": "-c jit=off", **DJANGO_OPTIONS}


def django_env(**extra: str) -> dict[str, str]:
    names = ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SECRET_KEY")
    return {**{name: os.environ[name] for name in names if name in os.environ}, "DJANGO_SETTINGS_MODULE": "factcheck.settings", **extra}


@pytest.mark.parametrize(
    ("entry", "extra", "expected"),
    [
        ("import factcheck.wsgi; ", {}, "25s"),  # gunicorn's entry point: limited
        ("import factcheck.wsgi; ", {"FACTCHECK_WEB_STATEMENT_TIMEOUT_SECONDS": "7"}, "7s"),
        ("import factcheck.wsgi; ", {"FACTCHECK_WEB_STATEMENT_TIMEOUT_SECONDS": "0"}, "0"),  # turned off
        ("", {}, "0"),  # a Celery worker, the pipeline, manage.py: not limited
    ],
)
def test_only_the_web_process_connects_with_the_timeout(entry: str, extra: dict[str, str], expected: str) -> None:
    result = run_django(django_env(**extra), "-c", entry + SHOW_TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


def cancel_first_query() -> Any:
    """An execute wrapper that makes the request's first statement one that runs past a short
    statement timeout, as a slow query runs past the web's: PostgreSQL cancels it."""
    done: list[bool] = []

    def wrapper(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if not done:
            done.append(True)
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET LOCAL statement_timeout = '50ms'")
                cursor.execute("SELECT pg_sleep(5)")
        return execute(sql, params, many, context)

    return wrapper


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/claims/", "/api/v1/claims/?limit=200"])
def test_a_query_stopped_by_the_timeout_says_so_and_the_next_request_works(reviewer, path: str) -> None:  # type: ignore[no-untyped-def]
    client = Client(raise_request_exception=False)
    client.force_login(reviewer)
    with connection.execute_wrapper(cancel_first_query()):
        response = client.get(path)
    assert response.status_code == 503
    page = response.content.decode()
    assert "took more than 25 seconds" in page and "Narrow the filters" in page and "restarting" not in page
    assert client.get(path).status_code == 200
