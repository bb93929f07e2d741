import ast
from collections import Counter
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from factcheck import settings as settings_module
from factcheck.settings import database_from_url, env_bool, env_int

# What every DATABASES entry's OPTIONS carry for Django (factcheck/postgres/base.py).
DJANGO_OPTIONS = {"prepared_statements": True}


def test_database_url_is_parsed_with_options() -> None:
    parsed = database_from_url("postgresql://fc:p%40ss@db.example:6543/factcheck?sslmode=require")
    assert (parsed["NAME"], parsed["USER"], parsed["PASSWORD"], parsed["HOST"], parsed["PORT"]) == (
        "factcheck", "fc", "p@ss", "db.example", "6543",
    )
    assert parsed["OPTIONS"] == {"sslmode": "require", "options": "-c jit=off", **DJANGO_OPTIONS}
    # A URL's own server options come after the app's, so they can override it.
    assert database_from_url("postgresql://db/x?options=-c%20jit%3Don")["OPTIONS"] == {"options": "-c jit=off -c jit=on", **DJANGO_OPTIONS}


@pytest.mark.django_db
def test_the_apps_connections_plan_without_jit() -> None:
    """A queue page whose estimate ran high spent 160 ms in PostgreSQL's JIT compiler for a
    7 ms run: the app's connections turn it off."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


def test_prepared_statements_can_be_turned_off_and_never_reach_libpq() -> None:
    from django.db import connection

    from factcheck.runs.spark import database_url_for_job

    assert database_from_url("postgresql://db/x", prepared_statements=False)["OPTIONS"]["prepared_statements"] is False
    # The pipeline's own connections are libpq's: it would refuse a parameter it does not know.
    assert connection.settings_dict["OPTIONS"]["prepared_statements"] is True
    assert "prepared_statements" not in database_url_for_job()


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


def test_each_setting_is_declared_once() -> None:
    """factcheck/settings.py declares each setting once, in the block of its topic: no
    statement at module level assigns a setting twice, assigns into one (CACHES["x"] = ...)
    or changes one in place (MIDDLEWARE.insert(...)). A block that changed an earlier one's
    setting hid what the setting was from anyone reading that block."""
    tree = ast.parse(Path(settings_module.__file__).read_text())
    declared: Counter[str] = Counter()
    changed: list[str] = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign) else []
        for target in targets:
            if isinstance(node, ast.AugAssign) or isinstance(target, ast.Subscript | ast.Attribute):
                changed.append(ast.unparse(target))
            elif isinstance(target, ast.Name) and target.id.isupper():
                declared[target.id] += 1
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute):
            owner = node.value.func.value
            if isinstance(owner, ast.Name) and owner.id.isupper():
                changed.append(ast.unparse(node.value.func))
    assert len(declared) > 100
    assert [name for name, count in declared.items() if count > 1] == []
    assert changed == []
