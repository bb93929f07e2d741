#!/usr/bin/env bash
# supervise.sh NAME COMMAND [ARGS...]: run COMMAND, and run it again whenever it exits, until
# this script gets TERM or INT (passed on to COMMAND, then waited for). A command that dies
# soon after starting waits longer each time (1, 2, 4 ... 30 s); one that ran a minute starts
# over at 1 s. scripts/up.sh runs the web server, the Celery worker and Celery beat each under
# its own supervisor, so one dying neither stops the others nor stays down.
set -uo pipefail
name=$1
shift
child=""
stopping=0
stop() {
  stopping=1
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
}
trap stop TERM INT

delay=1
while [ "$stopping" = 0 ]; do
  started=$(date +%s)
  "$@" &
  child=$!
  # wait returns early when a trapped signal arrives; wait again for the child to finish.
  wait "$child"
  code=$?
  while kill -0 "$child" 2>/dev/null; do wait "$child"; code=$?; done
  child=""
  [ "$stopping" = 1 ] && break
  if [ $(( $(date +%s) - started )) -ge 60 ]; then delay=1; fi
  printf '!!  %s exited with code %s; restarting in %ss\n' "$name" "$code" "$delay" >&2
  sleep "$delay" &
  wait $! || true
  delay=$(( delay * 2 > 30 ? 30 : delay * 2 ))
done
