#!/usr/bin/env bash
# Installs what is missing: Python 3.11 virtualenv with pinned requirements, Java 17+,
# and the PostgreSQL/Redis server binaries when no external DATABASE_URL/CELERY_BROKER_URL
# is given. `--with-browser` adds Debian's Chromium for the browser tests.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

WITH_BROWSER=0
[ "${1:-}" = "--with-browser" ] && WITH_BROWSER=1

# --- Python ---------------------------------------------------------------------------------
PYTHON_BIN="${PYTHON:-python3.11}"
if ! command -v "$PYTHON_BIN" >/dev/null; then
  apt_install python3.11 python3.11-venv
fi
"$PYTHON_BIN" -c 'import sys; assert sys.version_info[:2] == (3, 11), sys.version' 2>/dev/null \
  || die "$PYTHON_BIN is not Python 3.11 (set PYTHON=/path/to/python3.11)."
if [ ! -x "$PY" ]; then
  say "Creating virtualenv in .venv"
  "$PYTHON_BIN" -m venv "$VENV" || { apt_install python3.11-venv; "$PYTHON_BIN" -m venv "$VENV"; }
fi
REQ_HASH="$(cat "$ROOT/requirements.txt" "$ROOT/requirements-dev.txt" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$VENV/.requirements.sha256" 2>/dev/null)" != "$REQ_HASH" ]; then
  say "Installing Python requirements (pinned)"
  "$PY" -m pip install -q --disable-pip-version-check --upgrade pip
  "$PY" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements-dev.txt"
  echo "$REQ_HASH" >"$VENV/.requirements.sha256"
fi

# --- Java (Spark 4 needs 17+) ---------------------------------------------------------------
java_major() { java -version 2>&1 | sed -nE 's/.*version "([0-9]+).*/\1/p' | head -1; }
if ! command -v java >/dev/null || [ "$(java_major)" -lt 17 ]; then
  apt_install openjdk-17-jre-headless
fi
[ "$(java_major)" -ge 17 ] || die "Java 17 or newer is needed for Spark 4 (found: $(java -version 2>&1 | head -1))."

# --- PostgreSQL and Redis binaries (only when we must run our own) --------------------------
if [ -z "${DATABASE_URL:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  apt_install postgresql
fi
if [ -z "${CELERY_BROKER_URL:-}" ] && ! command -v redis-server >/dev/null; then
  apt_install redis-server
fi

# --- nginx (make up serves through a project-local nginx: scripts/nginx.conf.template) -------
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  apt_install nginx
  # Debian's postinst starts (and enables) the system nginx on port 80. The project only uses
  # the binary, with its own config under .var/nginx/; stop and disable that system instance,
  # right after installing it, and never touch it otherwise.
  if command -v systemctl >/dev/null && systemctl is-active --quiet nginx 2>/dev/null; then
    systemctl disable --now nginx >/dev/null 2>&1 || true
  elif [ -f /run/nginx.pid ]; then
    /usr/sbin/nginx -s stop 2>/dev/null || true
  fi
  command -v update-rc.d >/dev/null && update-rc.d nginx disable >/dev/null 2>&1 || true
fi

# --- Pango and fonts for WeasyPrint (PDF reports) -------------------------------------------
SHARED_LIBS="$(ldconfig -p 2>/dev/null || true)"
FONTS="$(fc-list 2>/dev/null || true)"
if [[ "$SHARED_LIBS" != *libpangoft2-1.0.so.0* || "$SHARED_LIBS" != *libharfbuzz-subset.so.0* || "$FONTS" != *DejaVu* ]]; then
  apt_install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fontconfig fonts-dejavu-core
fi

# --- Browser for the end-to-end tests --------------------------------------------------------
if [ "$WITH_BROWSER" = 1 ] && ! command -v chromium >/dev/null; then
  apt_install chromium
fi
exit 0
