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
PUBLIC_PORT=$(first_free_port "${PORT:-8000}")
APP_PORT=$(first_free_port $(( PUBLIC_PORT + 1 )))
# Sync workers, one request each: pages are CPU-bound Python, and threads of one process share
# one core (with keep-alive, a connection stays with its worker's threads); 2 x cores + 1
# processes leave room for a long export or PDF report. WEB_CONCURRENCY overrides the count.
# Gunicorn listens on a private loopback port; a project-local nginx (scripts/nginx.sh) on the
# public port buffers each request whole first, so slow clients cannot hold the sync workers.
"$SUPERVISE" web "$VENV/bin/gunicorn" factcheck.wsgi --bind "127.0.0.1:$APP_PORT" \
  --workers "${WEB_CONCURRENCY:-$(( 2 * $(nproc) + 1 ))}" \
  --access-logfile "$VAR/log/access.log" --error-logfile "$VAR/log/web.log" 2>>"$VAR/log/web.log" &
PIDS+=($!)
MAX_BODY=$("$PY" "$ROOT/manage.py" shell -v 0 -c \
  "from factcheck.middleware import largest_body_limit; print(largest_body_limit())")
say "Starting nginx on the public port (config and logs: .var/nginx/)"
"$SUPERVISE" nginx "$ROOT/scripts/nginx.sh" "$VAR/nginx" "$PUBLIC_PORT" "$APP_PORT" "$MAX_BODY" \
  2>>"$VAR/log/nginx.log" &
PIDS+=($!)
WEB_PORT=$PUBLIC_PORT
for _ in $(seq 100); do port_free "$APP_PORT" || port_free "$PUBLIC_PORT" || break; sleep 0.1; done

echo
say "Factcheck is running at http://127.0.0.1:$WEB_PORT/  (ready in $(( $(date +%s) - STARTED ))s)"
echo "    Log in with the demo users above (passwords are printed once, when created;"
echo "    'make passwords' prints new ones). Ctrl-C stops the app, the worker and beat."
# The supervisors return only when stopped: this waits for Ctrl-C.
wait "${PIDS[@]}"
