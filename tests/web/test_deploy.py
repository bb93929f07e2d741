"""Deployment hardening: the documented production environment passes `check --deploy`, no
secret key is written in the source, and every page carries the security headers and needs
no inline script."""

from __future__ import annotations

import os
import re
import secrets
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings

from tests.conftest import PERSONA_PASSWORD, ROOT

DOCUMENTED = ROOT / "docs" / "deployment.md"


def documented_production_env() -> dict[str, str]:
    """The sh block under "## Environment" in docs/deployment.md, as variables."""
    section = DOCUMENTED.read_text().split("## Environment", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "docs/deployment.md lost its environment block"
    env = {}
    for line in block.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, value = line.partition("=")
            env[name] = value
    return env


def run_django(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    # Only the basics from this process: none of the test run's DJANGO_*/FACTCHECK_* settings.
    base = {name: os.environ[name] for name in ("PATH", "HOME", "LANG", "SYSTEMROOT") if name in os.environ}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env={**base, **env}, capture_output=True, text=True, timeout=120)


def test_check_deploy_is_clean_with_the_documented_production_environment() -> None:
    env = documented_production_env()
    assert env["DJANGO_SECRET_KEY"] == "..."
    env["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)
    result = run_django(env, "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_fails_without_the_tls_settings() -> None:
    """The same check, with the documented TLS settings left out, does find the gaps (so the
    test above is a real check, not a check that passes on anything)."""
    env = {k: v for k, v in documented_production_env().items() if not k.startswith("DJANGO_SECURE_")}
    env["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)
    result = run_django(env, "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    assert "security.W004" in result.stderr + result.stdout and "security.W008" in result.stderr + result.stdout


PRINT_KEY = "import django; from django.conf import settings; django.setup(); print(settings.SECRET_KEY)"


def test_production_without_a_secret_key_refuses_to_start() -> None:
    env = {**documented_production_env(), "DJANGO_SETTINGS_MODULE": "factcheck.settings"}
    del env["DJANGO_SECRET_KEY"]
    result = run_django(env, "-c", PRINT_KEY)
    assert result.returncode != 0 and "DJANGO_SECRET_KEY is not set" in result.stderr


def test_local_runs_without_a_key_use_a_random_one_made_once(tmp_path: Path) -> None:
    key_file = tmp_path / "secret_key"
    env = {"DJANGO_SETTINGS_MODULE": "factcheck.settings", "FACTCHECK_LOCAL": "1", "FACTCHECK_SECRET_KEY_FILE": str(key_file)}
    first = run_django(env, "-c", PRINT_KEY)
    assert first.returncode == 0, first.stderr
    key = first.stdout.strip()
    assert len(key) >= 50 and key == key_file.read_text().strip()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert run_django(env, "-c", PRINT_KEY).stdout.strip() == key  # the same on the next start
    source = (ROOT / "factcheck" / "settings.py").read_text()
    assert "insecure" not in source.lower()


# --- Headers --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_kind_of_page_carries_the_content_security_policy(reviewer, admin_user) -> None:  # type: ignore[no-untyped-def]
    from django.conf import settings

    pages = [(Client(), "/login/"), (Client(), "/admin/login/")]
    signed_in = Client()
    assert signed_in.login(username=admin_user.username, password=PERSONA_PASSWORD)
    pages += [(signed_in, "/claims/"), (signed_in, "/admin/"), (signed_in, "/api/v1/"), (signed_in, "/imports/")]
    for client, path in pages:
        response = client.get(path, HTTP_ACCEPT="text/html")
        assert response.status_code == 200, path
        policy = response["Content-Security-Policy"]
        assert policy == settings.FACTCHECK_CONTENT_SECURITY_POLICY, path
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        assert response["X-Frame-Options"] == "DENY" and response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
def test_https_settings_redirect_and_send_hsts_behind_the_proxy() -> None:
    with override_settings(
        SECURE_SSL_REDIRECT=True, SECURE_HSTS_SECONDS=31536000, SECURE_HSTS_INCLUDE_SUBDOMAINS=True,
        SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
    ):
        plain = Client().get("/login/")
        assert plain.status_code == 301 and plain["Location"] == "https://testserver/login/"
        proxied = Client().get("/login/", HTTP_X_FORWARDED_PROTO="https")
        assert proxied.status_code == 200
        assert proxied["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"


# --- No inline script or style in what browsers get -------------------------------------------

TEMPLATES = sorted(p for p in (ROOT / "templates").rglob("*.html") if p.name != "report_pdf.html")  # the PDF's CSS never reaches a browser
DATA_SCRIPT = re.compile(r"""<script\b[^>]*\btype=["']application/(ld\+)?json["']""", re.I)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT / "templates")))
def test_templates_hold_no_inline_script_handler_or_style(template: Path) -> None:
    html = template.read_text()
    inline_scripts = [tag for tag in re.findall(r"<script\b[^>]*>", html, re.I) if "src=" not in tag and not DATA_SCRIPT.match(tag)]
    assert inline_scripts == []
    assert re.findall(r"""\son[a-z]+\s*=\s*["']""", html, re.I) == []
    assert re.findall(r"""\sstyle\s*=\s*["']|<style\b""", html, re.I) == []
    assert "javascript:" not in html.lower()
