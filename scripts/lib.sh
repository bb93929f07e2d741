# Shared helpers for the set-up scripts. Sourced, not run.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VAR="$ROOT/.var"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
warn() { printf '\033[33m!!  %s\033[0m\n' "$*" >&2; }
die() { printf '\033[31mxx  %s\033[0m\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = "0" ]; }

APT_UPDATED=0
# apt_install PKG... : install Debian packages when running as root; otherwise explain.
apt_install() {
  if ! is_root; then
    die "Missing system packages: $*. Install them (sudo apt-get install $*) or run 'make up' as root."
  fi
  command -v apt-get >/dev/null || die "Missing system packages: $* (and no apt-get to install them with)."
  if [ "$APT_UPDATED" = 0 ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq || die "apt-get update failed"
    APT_UPDATED=1
  fi
  say "Installing Debian packages: $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
    || die "apt-get install $* failed"
}

# port_free PORT: true when nothing listens on 127.0.0.1:PORT.
port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# first_free_port START: the first port >= START with nothing listening.
first_free_port() {
  local port=$1
  while ! port_free "$port"; do port=$((port + 1)); done
  echo "$port"
}

# listens_as PORT PID: true when PID, or a process it started, listens on PORT. Read from
# /proc (no ss or lsof needed): the listening socket's inode, then who holds it.
listens_as() {
  local hex inode pid
  hex=$(printf '%04X' "$1")
  for inode in $(awk -v port=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == port { print $10 }' /proc/net/tcp /proc/net/tcp6); do
    for pid in $(find /proc/[0-9]*/fd -maxdepth 1 -lname "socket:\[$inode\]" 2>/dev/null | cut -d/ -f3 | sort -u); do
      while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
        [ "$pid" = "$2" ] && return 0
        pid=$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
      done
    done
  done
  return 1
}

# answers_http PORT: GET /login/ on 127.0.0.1:PORT is answered 200.
answers_http() {
  local status
  status=$(
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'GET /login/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
    read -r -t 10 line <&3 && echo "$line"
  ) 2>/dev/null || return 1
  [[ "$status" =~ ^HTTP/1\.[01]\ 200 ]]
}

# The environment `make up` / `make test` wrote: database and broker URLs, secret key.
load_env() {
  # shellcheck disable=SC1091
  [ -f "$VAR/env" ] && . "$VAR/env"
  export DATABASE_URL CELERY_BROKER_URL DJANGO_SECRET_KEY
  export DJANGO_SETTINGS_MODULE=factcheck.settings
  export PATH="$VENV/bin:$PATH"
  export PYSPARK_PYTHON="$PY"
  export PYSPARK_DRIVER_PYTHON="$PY"
}
