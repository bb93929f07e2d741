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
# Local Spark runs start their JVM from an archive of Spark's classes, recorded once here
# (~50 s on 2 cores) rather than during somebody's first run; without it they start slower.
if ARCHIVE_LINE=$("$PY" "$ROOT/manage.py" spark_class_archive); then
  say "$ARCHIVE_LINE"
else
  warn "Spark runs will start without the class archive (see above)."
fi
