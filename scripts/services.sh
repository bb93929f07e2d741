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
REDIS_HOME="$VAR/redis"

# pg_paths: PG_DIR, PG_DATA, PG_RUN, PG_LOG from the real location of .var/postgres. Every
# path the postgres user is handed must be one it can reach: .var/postgres may be a link out
# of a directory it cannot enter (see start_local_postgres), and a path through the link
# still crosses that directory.
pg_paths() {
  PG_DIR=$(readlink -m "$PG_HOME")
  PG_DATA="$PG_DIR/data"
  PG_RUN="$PG_DIR/run"
  PG_LOG="$PG_DIR/server.log"
}

pg_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$dir" ] || die "PostgreSQL server binaries not found (run 'make up' as root to install them, or set DATABASE_URL)."
  echo "$dir"
}

# PostgreSQL refuses to run as root: as root, the local server runs as the 'postgres' user,
# from / (the caller's working directory may be one it cannot enter).
as_pg_user() {
  if is_root; then
    (cd / && runuser -u postgres -- "$@")
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
    # mktemp dir) keeps its data in /var/tmp instead, linked from .var/postgres. mktemp makes
    # a new directory of its own: a fixed name in a world-writable place could be planted
    # by another user (and chown below would follow their link).
    if [ ! -e "$PG_HOME" ] && [ ! -L "$PG_HOME" ] && ! runuser -u postgres -- test -x "$VAR"; then
      ln -s "$(mktemp -d /var/tmp/factcheck-postgres-XXXXXXXX)" "$PG_HOME"
    fi
  fi
  pg_paths
  mkdir -p "$PG_DIR"
  if is_root; then chown postgres: "$PG_DIR"; fi
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    say "Initialising a project-local PostgreSQL in $PG_DIR"
    as_pg_user mkdir -p "$PG_DATA" "$PG_RUN"
    as_pg_user "$bin/initdb" -D "$PG_DATA" -U factcheck --auth=trust -E UTF8 --locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1 \
      || die "initdb failed; see $PG_DIR/initdb.log"
  fi
  as_pg_user mkdir -p "$PG_RUN"
  if ! as_pg_user "$bin/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
    if [ -z "${FACTCHECK_PG_PORT:-}" ] || ! port_free "$FACTCHECK_PG_PORT"; then
      FACTCHECK_PG_PORT=$(first_free_port 55432)
    fi
    # Another process can take the port between the check and the server's bind: the
    # postmaster then exits and pg_ctl -w fails, and the next free port is tried.
    local tries
    for tries in 1 2 3 4 5; do
      say "Starting PostgreSQL on 127.0.0.1:$FACTCHECK_PG_PORT"
      as_pg_user "$bin/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 \
        -o "-p $FACTCHECK_PG_PORT -k $PG_RUN -c listen_addresses=127.0.0.1" start >/dev/null && break
      [ "$tries" = 5 ] && die "PostgreSQL did not start; see $PG_LOG"
      warn "PostgreSQL did not start on port $FACTCHECK_PG_PORT (see $PG_LOG); trying the next free port"
      FACTCHECK_PG_PORT=$(first_free_port $(( FACTCHECK_PG_PORT + 1 )))
    done
  else
    FACTCHECK_PG_PORT=$(sed -n 4p "$PG_DATA/postmaster.pid")
  fi
  if ! "$bin/psql" -h 127.0.0.1 -p "$FACTCHECK_PG_PORT" -U factcheck -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = 'factcheck'" | grep -q 1; then
    "$bin/createdb" -h 127.0.0.1 -p "$FACTCHECK_PG_PORT" -U factcheck factcheck
  fi
  DATABASE_URL="postgresql://factcheck@127.0.0.1:$FACTCHECK_PG_PORT/factcheck"
}

# redis_is_ours PORT: the Redis answering on PORT is the one .var/redis/redis.pid names.
redis_is_ours() {
  local pid
  pid=$(cat "$REDIS_HOME/redis.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ "$(redis-cli -p "$1" INFO server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p')" = "$pid" ]
}

start_local_redis() {
  mkdir -p "$REDIS_HOME"
  if [ -n "${FACTCHECK_REDIS_PORT:-}" ] && redis_is_ours "$FACTCHECK_REDIS_PORT"; then
    # Started before its configuration kept queued messages across a restart: turn that on.
    redis-cli -p "$FACTCHECK_REDIS_PORT" CONFIG SET appendonly yes >/dev/null 2>&1 || true
  else
    if [ -z "${FACTCHECK_REDIS_PORT:-}" ] || ! port_free "$FACTCHECK_REDIS_PORT"; then
      FACTCHECK_REDIS_PORT=$(first_free_port 56379)
    fi
    # A daemonized redis-server exits 0 before it binds, so a port taken between the check
    # and the bind would leave the broker URL pointing at whoever took it: the server is
    # ours only once the one answering there reports our pid. Otherwise, the next port.
    local tries
    for tries in 1 2 3 4 5; do
      say "Starting Redis on 127.0.0.1:$FACTCHECK_REDIS_PORT"
      rm -f "$REDIS_HOME/redis.pid"
      redis-server "$ROOT/scripts/redis.conf" --bind 127.0.0.1 --port "$FACTCHECK_REDIS_PORT" --dir "$REDIS_HOME" \
        --daemonize yes --pidfile "$REDIS_HOME/redis.pid" --logfile "$REDIS_HOME/redis.log" \
        >/dev/null || die "Redis did not start; see $REDIS_HOME/redis.log"
      for _ in $(seq 50); do redis_is_ours "$FACTCHECK_REDIS_PORT" && break 2; sleep 0.1; done
      [ "$tries" = 5 ] && die "Redis did not start; see $REDIS_HOME/redis.log"
      warn "Redis did not start on port $FACTCHECK_REDIS_PORT (see $REDIS_HOME/redis.log); trying the next free port"
      FACTCHECK_REDIS_PORT=$(first_free_port $(( FACTCHECK_REDIS_PORT + 1 )))
    done
  fi
  CELERY_BROKER_URL="redis://127.0.0.1:$FACTCHECK_REDIS_PORT/0"
}

stop_local() {
  pg_paths
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
