#!/usr/bin/env bash
# `make lint`, and the first step of `make test`: ruff on the code, tests and benchmarks, then
# mypy on pipeline/ and factcheck/ (its configuration, and the modules it leaves out, are in
# pyproject.toml). A style, import or type error fails in seconds, not after the suite.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
say "ruff"
"$VENV/bin/ruff" check factcheck pipeline tests bench
say "mypy"
# mypy's Django plugin imports the settings, which want a secret key: outside `make up`'s
# environment, FACTCHECK_LOCAL=1 lets them use this checkout's own (.var/secret_key).
FACTCHECK_LOCAL=1 DJANGO_SETTINGS_MODULE=factcheck.settings "$VENV/bin/mypy"
