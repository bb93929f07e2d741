#!/usr/bin/env bash
# `make test`: the same set-up as `make up` (plus Chromium for the browser tests), then
# the whole suite against the real PostgreSQL, Redis, Celery, Spark and browser.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
bash "$ROOT/scripts/setup.sh" --with-browser
load_env
cd "$ROOT"
# Lint first: a style or import error fails in seconds, not after the suite.
say "ruff"
"$VENV/bin/ruff" check factcheck pipeline tests bench
exec "$PY" -m pytest "$@"
