"""Django settings, read from the environment with working local defaults.

Bad values fail loudly at start-up with ImproperlyConfigured rather than at first use. Each
setting is declared once, in the block of its topic (after the parsers below); a block never
changes another's settings. docs/settings.md lists the environment variables.
"""

from __future__ import annotations

import os
import re
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

from factcheck.secretkeys import secret_key_weakness

BASE_DIR = Path(__file__).resolve().parent.parent


N = TypeVar("N", int, float)


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_number(name: str, default: N, parse: Callable[[str], N], *, minimum: N, maximum: N | None = None) -> N:
    """A number from the environment (`parse`: int or float), `default` when unset or empty."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = parse(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be {'an integer' if parse is int else 'a number'}, got {raw!r}") from exc
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f">= {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise ImproperlyConfigured(f"{name} must be {bounds}, got {value}")
    return value


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    return env_number(name, default, int, minimum=minimum)


def env_float(name: str, default: float, *, minimum: float, maximum: float) -> float:
    return env_number(name, default, float, minimum=minimum, maximum=maximum)


def env_http_url(name: str, default: str, *, required: bool = True) -> str:
    """An absolute http(s) URL with a host, or (when not required) empty."""
    raw = os.environ.get(name)
    value = default if raw is None else raw.strip()
    if not value and not required:
        return ""
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise ImproperlyConfigured(f"{name} must be an absolute http(s) URL, got {value!r}")
    return value


def local_secret_key(path: Path) -> str:
    """The key in `path` (what `make up` writes to .var/secret_key), made there if missing."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_urlsafe(50) + "\n")
    key = path.read_text().strip()
    if len(key) < 50:
        raise ImproperlyConfigured(f"{path} holds no usable secret key; delete it and start again.")
    return key


def database_from_url(url: str, *, statement_timeout_seconds: int = 0, prepared_statements: bool = True) -> dict[str, object]:
    """Turn postgres://user:pass@host:port/name?sslmode=... into a DATABASES entry; with a
    statement timeout, every statement on its connections stops after that many seconds;
    `prepared_statements`: whether factcheck.postgres.base.prepared() prepares."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL must be a postgres:// or postgresql:// URL, got scheme {parts.scheme!r}"
        )
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL must name a database, e.g. postgresql://127.0.0.1:5432/factcheck")
    options: dict[str, object] = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    host = unquote(parts.hostname or "")
    # A host given as a query parameter (a unix socket directory) wins, as libpq does it.
    host = str(options.pop("host", host))
    # No JIT: the app's queries are short, and PostgreSQL compiles any whose estimate passes
    # jit_above_cost (a search page whose estimate ran high took 160 ms to compile for a 7 ms
    # run). The URL's own `options` come after, so they can turn it back on.
    timeout = f"-c statement_timeout={statement_timeout_seconds * 1000}" if statement_timeout_seconds else ""
    options["options"] = " ".join(filter(None, ["-c jit=off", timeout, str(options.get("options", ""))]))
    options["prepared_statements"] = prepared_statements
    return {
        "ENGINE": "factcheck.postgres",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(parts.port or ""),
        "OPTIONS": options,
        "CONN_MAX_AGE": env_int("DATABASE_CONN_MAX_AGE", 60),
        "CONN_HEALTH_CHECKS": True,
        "TEST": {"NAME": os.environ.get("DATABASE_TEST_NAME") or None},
    }


def cache_url_beside(broker_url: str) -> str:
    """The broker's Redis, next database number: cache keys never mix with Celery's queues."""
    parts = urlsplit(broker_url)
    if parts.scheme not in {"redis", "rediss"}:
        raise ImproperlyConfigured("Set CACHE_URL (a redis:// URL) when the broker is not Redis.")
    db = int(parts.path.lstrip("/") or 0)
    return parts._replace(path=f"/{(db + 1) % 16}").geturl()


# --- Django: debug, secret key, hosts, apps, middleware, templates ------------------------
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and "pytest" not in sys.modules and os.environ.get("FACTCHECK_LOCAL", "") != "1":
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. `make up` generates one in .var/env; "
            "in production set it in the environment."
        )
    # Local runs (debug, tests, FACTCHECK_LOCAL=1) use this checkout's own random key, made
    # once beside the other local state; no key is ever written in the source.
    SECRET_KEY = local_secret_key(Path(env_str("FACTCHECK_SECRET_KEY_FILE", str(BASE_DIR / ".var" / "secret_key"))))
elif not DEBUG and "pytest" not in sys.modules and (weakness := secret_key_weakness(SECRET_KEY)):
    # Anyone who knows the key forges sessions and password-reset links: a placeholder left in
    # production is refused at start, not merely warned about by `check --deploy`.
    raise ImproperlyConfigured(f"DJANGO_SECRET_KEY is {weakness}; set 50+ random characters (python -c 'import secrets; print(secrets.token_urlsafe(50))').")

ALLOWED_HOSTS = [h.strip() for h in env_str("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in env_str("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    # Form widgets render through TEMPLATES (FORM_RENDERER below), so templates/ can mend one.
    "django.forms",
    "factcheck.accounts",
    "factcheck.audit",
    "factcheck.articles",
    "factcheck.runs",
    "factcheck.claims",
    "factcheck.reports",
    "factcheck.factchecks",
    "factcheck.learning",
    "factcheck.sources",
    "factcheck.publishing",
    "rest_framework",
    "drf_spectacular",
    "factcheck.api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy header (FACTCHECK_CONTENT_SECURITY_POLICY, below).
    "factcheck.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Request bodies refused by their Content-Length (FACTCHECK_ANONYMOUS_MAX_BODY_BYTES, below).
    "factcheck.middleware.RequestBodyLimitMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
]

ROOT_URLCONF = "factcheck.urls"

# Widget templates are found like any other, templates/ first: templates/admin/widgets/
# labels the admin's date and time inputs.
FORM_RENDERER = "django.forms.renderers.TemplatesSetting"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "factcheck.accounts.context_processors.roles",
                "factcheck.claims.context_processors.work_counts",
                "factcheck.publishing.context_processors.organisation_banner",
            ],
            # {% layout %}: base.html hands its blocks to the Jinja2 page frame.
            "libraries": {"layout": "factcheck.templating", "keys": "factcheck.keys"},
        },
    },
    {
        # The triage queue (page, results, rows) and the page frame every page shares;
        # see factcheck/templating.py.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "NAME": "jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "factcheck.templating.environment",
            "autoescape": True,
            "auto_reload": DEBUG,
            "context_processors": [
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "factcheck.accounts.context_processors.roles",
                "factcheck.claims.context_processors.work_counts",
                "factcheck.publishing.context_processors.organisation_banner",
                "factcheck.templating.csrf",
            ],
        },
    },
]

WSGI_APPLICATION = "factcheck.wsgi.application"

# --- Database -----------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL", "postgresql://127.0.0.1:5432/factcheck")
# A web request's statements stop after FACTCHECK_WEB_STATEMENT_TIMEOUT_SECONDS. gunicorn kills
# a sync worker that stays silent for 30 s, but PostgreSQL runs the killed request's statement
# on to its end, holding a core and its locks long after the person gave up. Only the web
# process is limited (factcheck/wsgi.py names it): Celery workers, the pipeline and manage.py
# run long statements on purpose.
WEB_PROCESS = os.environ.get("FACTCHECK_PROCESS") == "web"
WEB_STATEMENT_TIMEOUT_SECONDS = env_int("FACTCHECK_WEB_STATEMENT_TIMEOUT_SECONDS", 25)
# The default queue's statements are prepared on their connection (factcheck/postgres/base.py);
# off behind a pooler in transaction mode that cannot carry prepared statements.
DATABASE_PREPARED_STATEMENTS = env_bool("DATABASE_PREPARED_STATEMENTS", True)
DATABASES = {
    "default": database_from_url(
        DATABASE_URL, statement_timeout_seconds=WEB_STATEMENT_TIMEOUT_SECONDS if WEB_PROCESS else 0,
        prepared_statements=DATABASE_PREPARED_STATEMENTS,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Logins: passwords, throttling, the proxy that names the client ------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = ["factcheck.accounts.backends.UserWithRoleBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "claims:list"
LOGOUT_REDIRECT_URL = "login"

FACTCHECK_LOGIN_MAX_FAILURES = env_int("FACTCHECK_LOGIN_MAX_FAILURES", 5, minimum=1)
FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS = env_int("FACTCHECK_LOGIN_MAX_FAILURES_PER_ADDRESS", 30, minimum=1)
FACTCHECK_LOGIN_WINDOW_SECONDS = env_int("FACTCHECK_LOGIN_WINDOW_SECONDS", 900, minimum=1)
# The project's own nginx (scripts/nginx.conf.template) sets X-Real-IP to the address it saw;
# the header is believed only on connections from DJANGO_TRUSTED_PROXIES (the proxy's own
# addresses: gunicorn listens on loopback behind it), never from a client that sends it itself.
FACTCHECK_TRUSTED_PROXY_HEADER = env_str("DJANGO_TRUSTED_PROXY_HEADER", "HTTP_X_REAL_IP")
FACTCHECK_TRUSTED_PROXIES = frozenset(
    address.strip() for address in env_str("DJANGO_TRUSTED_PROXIES", "127.0.0.1,::1").split(",") if address.strip()
)

# The client address for login throttling behind a proxy: entries counted from the right of
# DJANGO_TRUSTED_PROXY_HEADER (each proxy appends one to X-Forwarded-For; see ratelimit.py).
FACTCHECK_TRUSTED_PROXY_COUNT = env_int("DJANGO_TRUSTED_PROXY_COUNT", 1, minimum=1)

# --- Language, time, static files ---------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "factcheck" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# --- Uploads and bulk import ------------------------------------------------------------
# Uploaded import files are written here, never served, and deleted once their batch ends.
MEDIA_ROOT = Path(env_str("DJANGO_MEDIA_ROOT", str(BASE_DIR / ".var" / "media")))
FACTCHECK_UPLOAD_DIR = MEDIA_ROOT / "uploads"
FACTCHECK_UPLOAD_MAX_BYTES = env_int("FACTCHECK_UPLOAD_MAX_BYTES", 1024**3, minimum=1)
# Uploads above this size spool to a temporary file instead of memory (Django's own limit).
FILE_UPLOAD_MAX_MEMORY_SIZE = env_int("FILE_UPLOAD_MAX_MEMORY_SIZE", 2 * 1024**2, minimum=0)
# Form fields other than the file (pasted text included) stay under this.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 5 * 1024**2, minimum=1)
# Request bodies are refused by their Content-Length before anything reads them
# (factcheck/middleware.py): anonymous requests (the login forms) may send this much;
# signed-in ones DATA_UPLOAD_MAX_MEMORY_SIZE, admins' uploads FACTCHECK_UPLOAD_MAX_BYTES.
FACTCHECK_ANONYMOUS_MAX_BODY_BYTES = env_int("FACTCHECK_ANONYMOUS_MAX_BODY_BYTES", 64 * 1024, minimum=1024)
# Files up to this size import inside the request; larger ones go to a Celery task.
FACTCHECK_IMPORT_INLINE_MAX_BYTES = env_int("FACTCHECK_IMPORT_INLINE_MAX_BYTES", 1024**2, minimum=0)
# An article text longer than this (characters, after normalisation) is rejected.
FACTCHECK_IMPORT_MAX_TEXT_CHARS = env_int("FACTCHECK_IMPORT_MAX_TEXT_CHARS", 500_000, minimum=1)
# Rows per transaction: a crash loses at most one chunk of work, never half an article.
FACTCHECK_IMPORT_CHUNK_ROWS = env_int("FACTCHECK_IMPORT_CHUNK_ROWS", 1000, minimum=1)
# An import chunk also ends once its prepared articles hold this many characters of text and
# metadata, so a chunk of long articles stays small in memory (and in its one INSERT).
FACTCHECK_IMPORT_CHUNK_MAX_CHARS = env_int("FACTCHECK_IMPORT_CHUNK_MAX_CHARS", 16_000_000, minimum=1)
# Rejected rows listed one by one on the batch (the counter always counts them all).
FACTCHECK_IMPORT_MAX_LISTED_ERRORS = env_int("FACTCHECK_IMPORT_MAX_LISTED_ERRORS", 10_000, minimum=1)
FACTCHECK_IMPORT_SOFT_TIME_LIMIT = env_int("FACTCHECK_IMPORT_SOFT_TIME_LIMIT", 3600, minimum=1)
FACTCHECK_IMPORT_TIME_LIMIT = env_int("FACTCHECK_IMPORT_TIME_LIMIT", 3900, minimum=1)
if FACTCHECK_IMPORT_TIME_LIMIT <= FACTCHECK_IMPORT_SOFT_TIME_LIMIT:
    raise ImproperlyConfigured("FACTCHECK_IMPORT_TIME_LIMIT must be greater than FACTCHECK_IMPORT_SOFT_TIME_LIMIT")

# --- The triage queue ------------------------------------------------------------------
FACTCHECK_QUEUE_PAGE_SIZE = env_int("FACTCHECK_QUEUE_PAGE_SIZE", 50, minimum=1)
# Bulk actions over at most this many claims run inside the request; larger ones in Celery.
FACTCHECK_BULK_INLINE_MAX = env_int("FACTCHECK_BULK_INLINE_MAX", 200, minimum=0)
# The most claims one bulk action may cover (its claim ids are fixed when it is confirmed).
FACTCHECK_BULK_MAX_CLAIMS = env_int("FACTCHECK_BULK_MAX_CLAIMS", 50_000, minimum=1)
# Claims per transaction in a background bulk action; progress is written after each.
FACTCHECK_BULK_CHUNK = env_int("FACTCHECK_BULK_CHUNK", 100, minimum=1)
FACTCHECK_BULK_SOFT_TIME_LIMIT = env_int("FACTCHECK_BULK_SOFT_TIME_LIMIT", 1800, minimum=1)
FACTCHECK_BULK_TIME_LIMIT = env_int("FACTCHECK_BULK_TIME_LIMIT", 1900, minimum=1)
if FACTCHECK_BULK_TIME_LIMIT <= FACTCHECK_BULK_SOFT_TIME_LIMIT:
    raise ImproperlyConfigured("FACTCHECK_BULK_TIME_LIMIT must be greater than FACTCHECK_BULK_SOFT_TIME_LIMIT")

# --- Model versions refit from the desk's decisions (factcheck/learning) --------------------
# Where refitted artifacts are written, one directory per version; the shipped versions live in
# the repository (pipeline/models/). Shared by the web app, the workers and spark-submit's driver.
FACTCHECK_MODEL_STORE = Path(env_str("FACTCHECK_MODEL_STORE", str(BASE_DIR / ".var" / "models")))
FACTCHECK_REFIT_SOFT_TIME_LIMIT = env_int("FACTCHECK_REFIT_SOFT_TIME_LIMIT", 3600, minimum=1)
FACTCHECK_REFIT_TIME_LIMIT = env_int("FACTCHECK_REFIT_TIME_LIMIT", 3900, minimum=1)
if FACTCHECK_REFIT_TIME_LIMIT <= FACTCHECK_REFIT_SOFT_TIME_LIMIT:
    raise ImproperlyConfigured("FACTCHECK_REFIT_TIME_LIMIT must be greater than FACTCHECK_REFIT_SOFT_TIME_LIMIT")

# --- Publishing: the organisation's seed (factcheck/publishing) ------------------------------
# These only seed the organisation on a fresh install's first read; from then on it lives in
# the database and an admin edits it on /organisation/. The seed is a demo organisation
# (flagged on every staff page and export) unless FACTCHECK_ORG_URL names a public site that
# is not a reserved example domain.
FACTCHECK_ORG_NAME = env_str("FACTCHECK_ORG_NAME", "Factcheck desk").strip()
if not FACTCHECK_ORG_NAME:
    raise ImproperlyConfigured("FACTCHECK_ORG_NAME must not be empty (it is the published fact checks' author).")
FACTCHECK_ORG_URL = env_http_url("FACTCHECK_ORG_URL", "", required=False)
FACTCHECK_ORG_LOGO = env_http_url("FACTCHECK_ORG_LOGO", "", required=False)
# Where the public fact-check pages live (the ClaimReview url); empty: the request's host.
FACTCHECK_PUBLIC_BASE_URL = env_http_url("FACTCHECK_PUBLIC_BASE_URL", "", required=False)

# --- Exports: CSV, PDF reports -------------------------------------------------------------
# Rows fetched per round trip by the streamed exports (server-side cursor).
FACTCHECK_EXPORT_CHUNK_ROWS = env_int("FACTCHECK_EXPORT_CHUNK_ROWS", 2000, minimum=1)
# The most verdicts one PDF report lays out (a larger one asks to narrow the period or view).
FACTCHECK_REPORT_MAX_VERDICTS = env_int("FACTCHECK_REPORT_MAX_VERDICTS", 200, minimum=1)
# --- The fact-check library (factcheck/factchecks) ------------------------------------------
# Matching claims against the library. One configuration for both paths that store matches:
# the Spark job (factcheck.runs.spark passes these as its --match-top/--match-candidates) and
# the re-match of the queue when new fact-checks enter the library (factchecks.services), so a
# claim gets the same matches whichever path found them.
# Matches stored per claim.
FACTCHECK_MATCH_TOP = env_int("FACTCHECK_MATCH_TOP", 5, minimum=1)
# BM25 candidates re-ranked per claim: 20 instead of the engine's 50 keeps matching within the
# issue's budget (a fifth of a run) at a cost in quality within the cross-validation's noise
# (docs/matching.md, "Figures").
FACTCHECK_MATCH_CANDIDATES = env_int("FACTCHECK_MATCH_CANDIDATES", 20, minimum=1)
# The lowest match probability stored. Most claims in the news were never checked, yet nearly
# every sentence shares a word with some check: on BBC News against LIAR + Snopes, four fifths
# of the top-5 pairs score under 1 %. Stored, each was a "match" to show and a row to write.
# On the CheckThat! train tweets, where every tweet has a match, 2 % of the relevant pairs in
# the top 5 score under it (docs/matching.md, "What is stored").
FACTCHECK_MATCH_MIN_SCORE = env_float("FACTCHECK_MATCH_MIN_SCORE", 0.01, minimum=0.0, maximum=1.0)
# The queue says "Checked before" (and its checked_before filter counts the claim) for a match a
# reviewer confirmed, or a suggestion from this probability on; the claim page lists every
# stored match. The default is the threshold `python -m pipeline.train_verification fit` chose on
# the train half of the news matching set: the highest at which at least 80 % of the repeats and
# at most 2 % of the never-checked claims are badged (a probability at a 1 % repeat rate, so a
# badge is a lead worth a look rather than a verdict; docs/matching.md, "Same claim, not same topic").
FACTCHECK_CHECKED_BEFORE_MIN_SCORE = env_float("FACTCHECK_CHECKED_BEFORE_MIN_SCORE", 0.03, minimum=0.0, maximum=1.0)
# --- REST API (factcheck/api) ---------------------------------------------------------------
FACTCHECK_API_PAGE_SIZE = env_int("FACTCHECK_API_PAGE_SIZE", 50, minimum=1)
FACTCHECK_API_MAX_PAGE_SIZE = env_int("FACTCHECK_API_MAX_PAGE_SIZE", 200, minimum=1)
if FACTCHECK_API_PAGE_SIZE > FACTCHECK_API_MAX_PAGE_SIZE:
    raise ImproperlyConfigured("FACTCHECK_API_PAGE_SIZE must not exceed FACTCHECK_API_MAX_PAGE_SIZE")
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "factcheck.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["factcheck.api.permissions.HasReviewerRole"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer", "rest_framework.renderers.BrowsableAPIRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_THROTTLE_CLASSES": ["factcheck.api.throttling.ApiUserThrottle", "factcheck.api.throttling.ApiAnonThrottle"],
}
# API rate limits (factcheck/api/throttling.py), DRF's "N/second|minute|hour|day".
FACTCHECK_API_RATE_USER = env_str("FACTCHECK_API_RATE_USER", "1200/minute")
FACTCHECK_API_RATE_ANON = env_str("FACTCHECK_API_RATE_ANON", "60/minute")
for _name, _rate in (("FACTCHECK_API_RATE_USER", FACTCHECK_API_RATE_USER), ("FACTCHECK_API_RATE_ANON", FACTCHECK_API_RATE_ANON)):
    if not re.fullmatch(r"[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)", _rate):
        raise ImproperlyConfigured(f"{_name} must look like 600/minute (per second, minute, hour or day), got {_rate!r}")
SPECTACULAR_SETTINGS = {
    "TITLE": "Factcheck API",
    "DESCRIPTION": "Read-only access to claims, clusters and verdicts. Authenticate with `Authorization: Token <token>` "
    "(`manage.py create_api_token USERNAME`) or a logged-in session; the reviewer role or above is required.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "ClaimStatusEnum": "factcheck.claims.models.Claim.Status",
        "VerdictStatusEnum": "factcheck.claims.models.Verdict.Status",
    },
}

# --- Redis: the Celery broker, the shared cache, sessions ---------------------------------
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
# A cache every web process shares: login throttling counts live here. Redis down must not take
# pages down: the cache answers "miss" when Redis does not (sessions then come from PostgreSQL,
# cached_db's own fallback), and gives up on a hung Redis quickly.
_redis_cache: dict[str, Any] = {
    "BACKEND": "factcheck.cache.FailSoftRedisCache",
    "LOCATION": env_str("CACHE_URL", "") or cache_url_beside(CELERY_BROKER_URL),
    "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "factcheck"),
    "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5, "retry_on_timeout": False},
}
# Sessions: the same Redis, each entry kept at most this long (see factcheck/cache.py: a
# logout during an outage cannot be undone in Redis; this bounds how long it is ignored).
CACHES: dict[str, dict[str, Any]] = {
    "default": _redis_cache,
    "sessions": {**_redis_cache, "BACKEND": "factcheck.cache.SessionCache"},
}
SESSION_CACHE_ALIAS = "sessions"
FACTCHECK_SESSION_CACHE_SECONDS = env_int("FACTCHECK_SESSION_CACHE_SECONDS", 300, minimum=1)
# Sessions are read from the shared Redis cache (written through to PostgreSQL, read from it
# when the cache has lost them): one query less on every request.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# A refused form says what to do, in the app's layout (factcheck/refusals.py).
CSRF_FAILURE_VIEW = "factcheck.refusals.csrf_failure"

# --- Spark --------------------------------------------------------------------------------
SPARK_MASTER = env_str("SPARK_MASTER", "local[*]")
SPARK_SUBMIT = env_str("SPARK_SUBMIT", "")  # empty: the spark-submit next to this Python
SPARK_APP = env_str("SPARK_APP", str(BASE_DIR / "pipeline" / "jobs" / "extract_claims.py"))
SPARK_EXTRA_ARGS = env_str("SPARK_EXTRA_ARGS", "")  # e.g. "--conf spark.executor.memory=4g"
SPARK_DRIVER_MEMORY = env_str("SPARK_DRIVER_MEMORY", "2g")
SPARK_LOG_DIR = Path(env_str("SPARK_LOG_DIR", str(BASE_DIR / ".var" / "spark-logs")))
SPARK_LOG_TAIL_LINES = env_int("SPARK_LOG_TAIL_LINES", 60, minimum=1)
# Local runs start their JVM from a class-data sharing archive made here by set-up; empty: none.
SPARK_CLASS_ARCHIVE_DIR = env_str("SPARK_CLASS_ARCHIVE_DIR", str(BASE_DIR / ".var" / "spark-cds"))
# Spark runs get their own, longer Celery limits (seconds).
SPARK_SOFT_TIME_LIMIT = env_int("SPARK_SOFT_TIME_LIMIT", 3 * 3600, minimum=1)
SPARK_TIME_LIMIT = env_int("SPARK_TIME_LIMIT", 3 * 3600 + 300, minimum=1)
if SPARK_TIME_LIMIT <= SPARK_SOFT_TIME_LIMIT:
    raise ImproperlyConfigured("SPARK_TIME_LIMIT must be greater than SPARK_SOFT_TIME_LIMIT")

# --- Faults: run retries, heartbeats, the reaper, a Redis outage ---------------------------
# A failed run is queued again up to this many attempts in all, waiting RETRY_SECONDS before
# the second, four times as long before each later one; a time limit is not retried.
FACTCHECK_RUN_MAX_ATTEMPTS = env_int("FACTCHECK_RUN_MAX_ATTEMPTS", 3, minimum=1)
FACTCHECK_RUN_RETRY_SECONDS = env_int("FACTCHECK_RUN_RETRY_SECONDS", 60)
# The worker marks a running run alive this often; the reaper takes a run back (re-queues it,
# or fails it after its last attempt) when that mark is older than STALE_SECONDS.
FACTCHECK_RUN_HEARTBEAT_SECONDS = env_int("FACTCHECK_RUN_HEARTBEAT_SECONDS", 15, minimum=1)
FACTCHECK_RUN_STALE_SECONDS = env_int("FACTCHECK_RUN_STALE_SECONDS", 120, minimum=1)
if FACTCHECK_RUN_STALE_SECONDS <= 2 * FACTCHECK_RUN_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured("FACTCHECK_RUN_STALE_SECONDS must be more than twice FACTCHECK_RUN_HEARTBEAT_SECONDS")
# A queued run (or import) whose message was sent this long ago and is still not started is
# sent again: the message may be lost. A second delivery is harmless (runs are claimed once).
FACTCHECK_RUN_RESEND_SECONDS = env_int("FACTCHECK_RUN_RESEND_SECONDS", 600, minimum=1)
FACTCHECK_REAPER_SECONDS = env_int("FACTCHECK_REAPER_SECONDS", 60, minimum=1)
# Beat asks this often whether the day turned (the queue's stored order then moves to it:
# claims.ranking.services.queue_order_refresh; one small statement while the day stands).
FACTCHECK_QUEUE_ORDER_BEAT_SECONDS = env_int("FACTCHECK_QUEUE_ORDER_BEAT_SECONDS", 600, minimum=1)
# --- Sources: feeds polled on their own schedule, pasted links (factcheck/sources) ---------
# Beat looks for due sources this often; each source's own interval is on its row.
FACTCHECK_SOURCES_BEAT_SECONDS = env_int("FACTCHECK_SOURCES_BEAT_SECONDS", 60, minimum=1)
# A source that keeps failing waits its interval doubled for each failure, at most this long.
FACTCHECK_SOURCE_MAX_BACKOFF_MINUTES = env_int("FACTCHECK_SOURCE_MAX_BACKOFF_MINUTES", 24 * 60, minimum=1)
FACTCHECK_SOURCE_POLL_SOFT_TIME_LIMIT = env_int("FACTCHECK_SOURCE_POLL_SOFT_TIME_LIMIT", 1800, minimum=1)
FACTCHECK_SOURCE_POLL_TIME_LIMIT = env_int("FACTCHECK_SOURCE_POLL_TIME_LIMIT", 1860, minimum=1)
if FACTCHECK_SOURCE_POLL_TIME_LIMIT <= FACTCHECK_SOURCE_POLL_SOFT_TIME_LIMIT:
    raise ImproperlyConfigured("FACTCHECK_SOURCE_POLL_TIME_LIMIT must be greater than FACTCHECK_SOURCE_POLL_SOFT_TIME_LIMIT")
FACTCHECK_FETCH_USER_AGENT = env_str("FACTCHECK_FETCH_USER_AGENT", "FactcheckBot/1.0 (newsroom claim triage)")
FACTCHECK_FETCH_CONNECT_TIMEOUT = env_float("FACTCHECK_FETCH_CONNECT_TIMEOUT", 5.0, minimum=0.1, maximum=120.0)
FACTCHECK_FETCH_READ_TIMEOUT = env_float("FACTCHECK_FETCH_READ_TIMEOUT", 15.0, minimum=0.1, maximum=300.0)
FACTCHECK_FETCH_TOTAL_SECONDS = env_float("FACTCHECK_FETCH_TOTAL_SECONDS", 60.0, minimum=0.1, maximum=600.0)
FACTCHECK_FETCH_MAX_REDIRECTS = env_int("FACTCHECK_FETCH_MAX_REDIRECTS", 5)
FACTCHECK_FETCH_MAX_BYTES = env_int("FACTCHECK_FETCH_MAX_BYTES", 10 * 1024 * 1024, minimum=1024)
FACTCHECK_FETCH_MAX_DECODED_BYTES = env_int("FACTCHECK_FETCH_MAX_DECODED_BYTES", 20 * 1024 * 1024, minimum=1024)
FACTCHECK_FETCH_RETRIES = env_int("FACTCHECK_FETCH_RETRIES", 2)
FACTCHECK_FETCH_BACKOFF_SECONDS = env_float("FACTCHECK_FETCH_BACKOFF_SECONDS", 1.0, minimum=0.0, maximum=60.0)
FACTCHECK_FETCH_HOST_DELAY_SECONDS = env_float("FACTCHECK_FETCH_HOST_DELAY_SECONDS", 1.0, minimum=0.0, maximum=60.0)
# Hosts fetched although their addresses are not public (beside the admin's AllowedHost rows):
# comma-separated names. Addresses themselves (127.0.0.1) are never allowed this way.
FACTCHECK_FETCH_ALLOWED_HOSTS = frozenset(host.strip().lower() for host in env_str("FACTCHECK_FETCH_ALLOWED_HOSTS", "").split(",") if host.strip())

# --- Celery -------------------------------------------------------------------------------
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_DEFAULT_QUEUE", "factcheck")
CELERY_SPARK_QUEUE = env_str("CELERY_SPARK_QUEUE", "factcheck-spark")
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 300, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 360, minimum=1)
# Redis re-delivers unacknowledged messages after this; it must exceed the longest hard limit
# or a long Spark run (or import) would be delivered twice while still running.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": max(SPARK_TIME_LIMIT, FACTCHECK_IMPORT_TIME_LIMIT, FACTCHECK_BULK_TIME_LIMIT, FACTCHECK_REFIT_TIME_LIMIT) + 600
}
CELERY_TASK_ROUTES = {"factcheck.runs.tasks.run_pipeline": {"queue": CELERY_SPARK_QUEUE}}
# Sending gives up after three tries (about a second when Redis refuses, at most 6 s when it
# hangs) rather than holding a page; the run or import stays queued and the reaper sends it.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
CELERY_BROKER_CONNECTION_TIMEOUT = 2.0
CELERY_BEAT_SCHEDULE = {
    "runs-reap": {"task": "factcheck.runs.tasks.runs_reap", "schedule": float(FACTCHECK_REAPER_SECONDS), "options": {"expires": FACTCHECK_REAPER_SECONDS}},
    "queue-order-refresh": {
        "task": "factcheck.claims.tasks.queue_order_refresh",
        "schedule": float(FACTCHECK_QUEUE_ORDER_BEAT_SECONDS),
        "options": {"expires": FACTCHECK_QUEUE_ORDER_BEAT_SECONDS},
    },
    "sources-poll-due": {
        "task": "factcheck.sources.tasks.sources_poll_due",
        "schedule": float(FACTCHECK_SOURCES_BEAT_SECONDS),
        "options": {"expires": FACTCHECK_SOURCES_BEAT_SECONDS},
    },
}

# --- Logging ------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # A refusal the code raised on purpose (PermissionDenied, Http404) is one line, not a traceback.
    "filters": {"expected_refusals": {"()": "factcheck.refusals.ExpectedRefusalFilter"}},
    "loggers": {
        "django.db.backends": {"level": "WARNING"}, "weasyprint": {"level": "WARNING"}, "fontTools": {"level": "WARNING"},
        "django.request": {"filters": ["expected_refusals"]},
    },
}

# --- Check-worthiness model --------------------------------------------------------------
CHECKWORTHINESS_DATA_DIR = env_str(
    "CHECKWORTHINESS_DATA_DIR", str(BASE_DIR.parent / "shared" / "data" / "checkthat2024_task1_en")
)

# --- Security: TLS and browser protections ------------------------------------------------
# All off by default for `make up` on http://127.0.0.1 and set in
# production (docs/deployment.md lists the environment; a test runs `check --deploy` on it).
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", False)
# "HTTP_X_FORWARDED_PROTO,https": the header the TLS-terminating proxy sets (and strips from
# clients) to say the request came over https. Only set it behind such a proxy.
_proxy_ssl_header = env_str("DJANGO_SECURE_PROXY_SSL_HEADER", "").strip()
SECURE_PROXY_SSL_HEADER: tuple[str, str] | None = None
if _proxy_ssl_header:
    _header, _, _value = _proxy_ssl_header.partition(",")
    if not re.fullmatch(r"HTTP_[A-Z0-9_]+", _header.strip()) or not _value.strip():
        raise ImproperlyConfigured(
            f"DJANGO_SECURE_PROXY_SSL_HEADER must look like HTTP_X_FORWARDED_PROTO,https, got {_proxy_ssl_header!r}"
        )
    SECURE_PROXY_SSL_HEADER = (_header.strip(), _value.strip())
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# No inline script or style anywhere (templates/ has none; a test keeps it so): scripts and
# styles come from this origin only. JSON-LD blocks are data, which CSP does not run.
FACTCHECK_CONTENT_SECURITY_POLICY = env_str(
    "FACTCHECK_CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
)
