#!/usr/bin/env bash
# `make up`: set up, create demo users, load the seeds, run the pipeline on them through
# Celery, and serve the web app with a worker until Ctrl-C.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
STARTED=$(date +%s)
bash "$ROOT/scripts/setup.sh"
load_env
mkdir -p "$VAR/log"

say "Demo users"
"$PY" "$ROOT/manage.py" create_demo_users

PIDS=()
cleanup() {
  trap - INT TERM EXIT
  if [ ${#PIDS[@]} -gt 0 ]; then
    say "Stopping the web server, the worker and beat"
    kill -TERM "${PIDS[@]}" 2>/dev/null || true
    wait "${PIDS[@]}" 2>/dev/null || true
  fi
}
trap cleanup INT TERM EXIT

# Each process under its own supervisor (scripts/supervise.sh): one that dies is started
# again, and neither stops the others.
SUPERVISE="$ROOT/scripts/supervise.sh"
say "Starting a Celery worker and Celery beat (logs: .var/log/worker.log, .var/log/beat.log)"
"$SUPERVISE" worker "$VENV/bin/celery" -A factcheck worker --loglevel=INFO --concurrency=2 \
  -Q factcheck,factcheck-spark --hostname "factcheck@%h" >>"$VAR/log/worker.log" 2>&1 &
PIDS+=($!)
# Beat sends the reaper (factcheck.runs.tasks.runs_reap) every FACTCHECK_REAPER_SECONDS: it
# takes back runs whose worker died and sends the messages a broker outage kept back.
"$SUPERVISE" beat "$VENV/bin/celery" -A factcheck beat --loglevel=INFO \
  --schedule "$VAR/celerybeat-schedule" >>"$VAR/log/beat.log" 2>&1 &
PIDS+=($!)

say "Importing the seed articles and running the pipeline on them"
"$PY" "$ROOT/manage.py" import_seeds --wait

"$PY" "$ROOT/manage.py" collectstatic --no-input -v0
# The web server and nginx (scripts/serve.sh): it prints the URL once our own server answers
# there. Any of them returning means something stopped for good: stop the rest too.
STARTED=$STARTED "$ROOT/scripts/serve.sh" &
PIDS+=($!)
wait -n "${PIDS[@]}"
