#!/usr/bin/env bash
# `make test`: the same set-up as `make up` (plus Chromium for the browser tests), then
# the whole suite against the real PostgreSQL, Redis, Celery, Spark and browser.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
bash "$ROOT/scripts/setup.sh" --with-browser
load_env
cd "$ROOT"
# Lint first (ruff and mypy, as `make lint`): a style or type error fails in seconds, not after the suite.
bash "$ROOT/scripts/lint.sh"
exec "$PY" -m pytest "$@"
