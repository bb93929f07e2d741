#!/usr/bin/env bash
# serve.sh: the web app as `make up` serves it, until TERM or INT (Ctrl-C). Gunicorn listens on
# a private loopback port; a project-local nginx (scripts/nginx.sh) on the public port, PORT
# (8000 by default) or the next free one, buffers each request whole first, so slow clients
# cannot hold the sync workers. The URL is printed once our nginx answers on it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
load_env
STARTED=${STARTED:-$(date +%s)}
mkdir -p "$VAR/log"
SUPERVISE="$ROOT/scripts/supervise.sh"

PIDS=()
cleanup() {
  trap - INT TERM EXIT
  if [ ${#PIDS[@]} -gt 0 ]; then
    kill -TERM "${PIDS[@]}" 2>/dev/null || true
    wait "${PIDS[@]}" 2>/dev/null || true
  fi
}
trap cleanup INT TERM EXIT

# Sync workers, one request each: pages are CPU-bound Python, and threads of one process share
# one core (with keep-alive, a connection stays with its worker's threads); 2 x cores + 1
# processes leave room for a long export or PDF report. WEB_CONCURRENCY overrides the count.
start_gunicorn() {
  "$SUPERVISE" web "$VENV/bin/gunicorn" factcheck.wsgi --bind "127.0.0.1:$1" \
    --workers "${WEB_CONCURRENCY:-$(( 2 * $(nproc) + 1 ))}" \
    --access-logfile "$VAR/log/access.log" --error-logfile "$VAR/log/web.log" 2>>"$VAR/log/web.log" &
}
start_nginx() {
  # shellcheck disable=SC2086  # BODY_LIMITS is three numbers, one argument each
  "$SUPERVISE" nginx "$ROOT/scripts/nginx.sh" "$VAR/nginx" "$1" "$APP_PORT" $BODY_LIMITS 2>>"$VAR/log/nginx.log" &
}

# serve_on_free_port NAME FIRST_PORT START_FUNCTION: starts the server (under its supervisor)
# on the first free port from FIRST_PORT and sets SERVED_PORT once the server itself listens
# there. A free port can be taken by another process between the check and the server's bind:
# when someone else listens there instead, our server is stopped and the next port tried.
serve_on_free_port() {
  local name=$1 port=$2 start=$3 supervisor tries waited
  for tries in 1 2 3 4 5; do
    port=$(first_free_port "$port")
    say "Starting $name on 127.0.0.1:$port (logs: .var/log/)"
    "$start" "$port"
    supervisor=$!
    for waited in $(seq 300); do
      if listens_as "$port" "$supervisor"; then
        PIDS+=("$supervisor")
        SERVED_PORT=$port
        return 0
      fi
      # Someone listens, and it is not ours (asked again: ours may have just started).
      ! port_free "$port" && ! listens_as "$port" "$supervisor" && break
      [ "$waited" = 300 ] && { kill -TERM "$supervisor"; die "$name did not listen on port $port within 30 s; see .var/log/"; }
      sleep 0.1
    done
    warn "Port $port was taken by another process before $name could bind it; trying the next free port"
    kill -TERM "$supervisor" 2>/dev/null || true
    wait "$supervisor" 2>/dev/null || true
    port=$(( port + 1 ))
  done
  die "$name found no free port to listen on after $tries tries"
}

FIRST_PORT=$(first_free_port "${PORT:-8000}")
serve_on_free_port gunicorn $(( FIRST_PORT + 1 )) start_gunicorn
APP_PORT=$SERVED_PORT
# The app's body limits (anonymous, signed in, uploads), which nginx enforces before reading.
BODY_LIMITS=$("$PY" "$ROOT/manage.py" shell -v 0 -c \
  "from factcheck.middleware import body_limits; b = body_limits(); print(b.anonymous, b.signed_in, b.upload)")
serve_on_free_port nginx "$FIRST_PORT" start_nginx
PUBLIC_PORT=$SERVED_PORT

# Workers load the app after gunicorn binds: wait until a page comes back through nginx.
for waited in $(seq 600); do
  answers_http "$PUBLIC_PORT" && break
  [ "$waited" = 600 ] && die "http://127.0.0.1:$PUBLIC_PORT/login/ did not answer 200 within 60 s; see .var/log/web.log"
  sleep 0.1
done

echo
say "Factcheck is running at http://127.0.0.1:$PUBLIC_PORT/  (ready in $(( $(date +%s) - STARTED ))s)"
echo "    Log in with the demo users above (passwords are printed once, when created;"
echo "    'make passwords' prints new ones). Ctrl-C stops the app, the worker and beat."
if [ -z "${FACTCHECK_ORG_URL:-}" ]; then
  echo "    Approving a verdict publishes it: set FACTCHECK_ORG_URL to your organisation's public"
  echo "    site (https://...) before starting, or approving and the ClaimReview exports refuse."
fi
# The supervisors return only when stopped: this waits for Ctrl-C.
wait "${PIDS[@]}"
