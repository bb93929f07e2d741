#!/usr/bin/env bash
# nginx.sh PREFIX LISTEN_PORT UPSTREAM_PORT ANON_BODY SIGNED_IN_BODY UPLOAD_BODY: render scripts/nginx.conf.template
# into PREFIX/nginx.conf (temp, pid and log paths under PREFIX) and run the system nginx binary
# in the foreground with that config. Never uses /etc/nginx or the system service. The three body
# limits are factcheck.middleware.body_limits(), as scripts/serve.sh reads them.
set -euo pipefail
prefix=$(realpath -m "$1")
bin=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$bin" ] || { echo "nginx is not installed (scripts/bootstrap.sh installs Debian's nginx as root)" >&2; exit 1; }
mkdir -p "$prefix/tmp"
sed -e "s#@PREFIX@#$prefix#g" -e "s#@LISTEN_PORT@#$2#g" -e "s#@UPSTREAM_PORT@#$3#g" \
  -e "s#@ANON_BODY@#$4#g" -e "s#@SIGNED_IN_BODY@#$5#g" -e "s#@UPLOAD_BODY@#$6#g" \
  "$(dirname "$0")/nginx.conf.template" >"$prefix/nginx.conf"
# Started by root, nginx runs its workers as 'nobody', which cannot reach PREFIX in a clone
# under /root or a mktemp directory: request bodies it buffers to PREFIX/tmp then fail with
# 500. Its workers run as the user who started it instead, as they do for anyone but root
# (gunicorn behind it runs as that user anyway).
user=""
[ "$(id -u)" = 0 ] && user="user root root;"
exec "$bin" -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" -g "daemon off; $user"
