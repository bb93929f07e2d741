import pytest
from django.core.exceptions import ImproperlyConfigured

from factcheck.settings import database_from_url, env_bool, env_int


def test_database_url_is_parsed_with_options() -> None:
    parsed = database_from_url("postgresql://fc:p%40ss@db.example:6543/factcheck?sslmode=require")
    assert (parsed["NAME"], parsed["USER"], parsed["PASSWORD"], parsed["HOST"], parsed["PORT"]) == (
        "factcheck", "fc", "p@ss", "db.example", "6543",
    )
    assert parsed["OPTIONS"] == {"sslmode": "require", "options": "-c jit=off"}
    # A URL's own server options come after the app's, so they can override it.
    assert database_from_url("postgresql://db/x?options=-c%20jit%3Don")["OPTIONS"] == {"options": "-c jit=off -c jit=on"}


@pytest.mark.django_db
def test_the_apps_connections_plan_without_jit() -> None:
    """A queue page whose estimate ran high spent 160 ms in PostgreSQL's JIT compiler for a
    7 ms run: the app's connections turn it off."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


def test_database_url_socket_host_from_query() -> None:
    assert database_from_url("postgres:///factcheck?host=/var/run/postgresql")["HOST"] == "/var/run/postgresql"


@pytest.mark.parametrize("url", ["mysql://localhost/x", "postgresql://localhost/", "sqlite:///db"])
def test_bad_database_urls_fail_loudly(url: str) -> None:
    with pytest.raises(ImproperlyConfigured):
        database_from_url(url)


def test_env_parsers_fail_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_BOOL", "maybe")
    monkeypatch.setenv("X_INT", "ten")
    with pytest.raises(ImproperlyConfigured):
        env_bool("X_BOOL", False)
    with pytest.raises(ImproperlyConfigured):
        env_int("X_INT", 1)
    monkeypatch.setenv("X_INT", "-1")
    with pytest.raises(ImproperlyConfigured):
        env_int("X_INT", 1, minimum=0)
