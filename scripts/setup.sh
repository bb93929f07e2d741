#!/usr/bin/env bash
# The set-up shared by `make up` and `make test`: install what is missing, start services,
# migrate. Safe to run any number of times.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
bash "$ROOT/scripts/bootstrap.sh" "$@"
bash "$ROOT/scripts/services.sh"
load_env
say "Migrating the database"
"$PY" "$ROOT/manage.py" migrate --no-input -v0
