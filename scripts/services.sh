#!/usr/bin/env bash
# Makes PostgreSQL and Redis available and writes .var/env with their URLs.
#   DATABASE_URL / CELERY_BROKER_URL set in the environment: used as they are.
#   Otherwise: project-local servers under .var/ on their own ports, started from the
#   system binaries and reused on the next run.
# `services.sh stop` stops the project-local servers.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mkdir -p "$VAR"
PORTS_FILE="$VAR/ports.env"
# shellcheck disable=SC1090
[ -f "$PORTS_FILE" ] && . "$PORTS_FILE"

PG_HOME="$VAR/postgres"
PG_DATA="$PG_HOME/data"
PG_RUN="$PG_HOME/run"
REDIS_HOME="$VAR/redis"

pg_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$dir" ] || die "PostgreSQL server binaries not found (run 'make up' as root to install them, or set DATABASE_URL)."
  echo "$dir"
}

# PostgreSQL refuses to run as root: as root, the local server runs as the 'postgres' user.
as_pg_user() {
  if is_root; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start_local_postgres() {
  local bin
  bin=$(pg_bin)
  if is_root; then
    id postgres >/dev/null 2>&1 || die "No 'postgres' system user to run the local PostgreSQL as."
    # A clone in a directory the postgres user cannot enter (e.g. under /root or a
    # mktemp dir) keeps its data in /var/tmp instead, linked from .var/postgres.
    if [ ! -e "$PG_HOME" ] && ! runuser -u postgres -- test -x "$VAR"; then
      local outside
      outside="/var/tmp/factcheck-postgres-$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)"
      mkdir -p "$outside"
      ln -s "$outside" "$PG_HOME"
    fi
  fi
  mkdir -p "$PG_HOME/"
  if is_root; then chown postgres: "$(readlink -f "$PG_HOME")"; fi
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    say "Initialising a project-local PostgreSQL in .var/postgres"
    as_pg_user mkdir -p "$PG_DATA" "$PG_RUN"
    as_pg_user "$bin/initdb" -D "$PG_DATA" -U factcheck --auth=trust -E UTF8 --locale=C.UTF-8 >"$PG_HOME/initdb.log" 2>&1 \
      || die "initdb failed; see $PG_HOME/initdb.log"
  fi
  as_pg_user mkdir -p "$PG_RUN"
  if ! as_pg_user "$bin/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
    if [ -z "${FACTCHECK_PG_PORT:-}" ] || ! port_free "$FACTCHECK_PG_PORT"; then
      FACTCHECK_PG_PORT=$(first_free_port 55432)
    fi
    say "Starting PostgreSQL on 127.0.0.1:$FACTCHECK_PG_PORT"
    as_pg_user "$bin/pg_ctl" -D "$PG_DATA" -l "$PG_HOME/server.log" -w -t 60 \
      -o "-p $FACTCHECK_PG_PORT -k $PG_RUN -c listen_addresses=127.0.0.1" start >/dev/null \
      || die "PostgreSQL did not start; see $PG_HOME/server.log"
  else
    FACTCHECK_PG_PORT=$(sed -n 4p "$PG_DATA/postmaster.pid")
  fi
  if ! "$bin/psql" -h 127.0.0.1 -p "$FACTCHECK_PG_PORT" -U factcheck -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = 'factcheck'" | grep -q 1; then
    "$bin/createdb" -h 127.0.0.1 -p "$FACTCHECK_PG_PORT" -U factcheck factcheck
  fi
  DATABASE_URL="postgresql://factcheck@127.0.0.1:$FACTCHECK_PG_PORT/factcheck"
}

start_local_redis() {
  mkdir -p "$REDIS_HOME"
  if [ -n "${FACTCHECK_REDIS_PORT:-}" ] && [ -f "$REDIS_HOME/redis.pid" ] \
      && kill -0 "$(cat "$REDIS_HOME/redis.pid")" 2>/dev/null; then
    # Started before its configuration kept queued messages across a restart: turn that on.
    redis-cli -p "$FACTCHECK_REDIS_PORT" CONFIG SET appendonly yes >/dev/null 2>&1 || true
  else
    if [ -z "${FACTCHECK_REDIS_PORT:-}" ] || ! port_free "$FACTCHECK_REDIS_PORT"; then
      FACTCHECK_REDIS_PORT=$(first_free_port 56379)
    fi
    say "Starting Redis on 127.0.0.1:$FACTCHECK_REDIS_PORT"
    redis-server "$ROOT/scripts/redis.conf" --bind 127.0.0.1 --port "$FACTCHECK_REDIS_PORT" --dir "$REDIS_HOME" \
      --daemonize yes --pidfile "$REDIS_HOME/redis.pid" --logfile "$REDIS_HOME/redis.log" \
      >/dev/null || die "Redis did not start; see $REDIS_HOME/redis.log"
    for _ in $(seq 50); do redis-cli -p "$FACTCHECK_REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  CELERY_BROKER_URL="redis://127.0.0.1:$FACTCHECK_REDIS_PORT/0"
}

stop_local() {
  if [ -f "$PG_DATA/postmaster.pid" ]; then
    as_pg_user "$(pg_bin)/pg_ctl" -D "$PG_DATA" -m fast stop >/dev/null && say "Stopped local PostgreSQL"
  fi
  if [ -f "$REDIS_HOME/redis.pid" ] && kill "$(cat "$REDIS_HOME/redis.pid")" 2>/dev/null; then
    rm -f "$REDIS_HOME/redis.pid"
    say "Stopped local Redis"
  fi
}

if [ "${1:-}" = "stop" ]; then
  stop_local
  exit 0
fi

if [ -n "${DATABASE_URL:-}" ]; then
  say "Using PostgreSQL from DATABASE_URL"
else
  start_local_postgres
fi
if [ -n "${CELERY_BROKER_URL:-}" ]; then
  say "Using Redis from CELERY_BROKER_URL"
else
  start_local_redis
fi

if [ ! -s "$VAR/secret_key" ]; then
  (umask 077; "$PY" -c 'import secrets; print(secrets.token_urlsafe(50))' >"$VAR/secret_key")
fi

cat >"$PORTS_FILE" <<EOF
FACTCHECK_PG_PORT=${FACTCHECK_PG_PORT:-}
FACTCHECK_REDIS_PORT=${FACTCHECK_REDIS_PORT:-}
EOF
(umask 077; cat >"$VAR/env" <<EOF
DATABASE_URL='$DATABASE_URL'
CELERY_BROKER_URL='$CELERY_BROKER_URL'
DJANGO_SECRET_KEY='$(cat "$VAR/secret_key")'
EOF
)
