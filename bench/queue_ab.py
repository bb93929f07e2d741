"""The queue pages' CPU a request at two revisions of the code, alternated: what a change to the
read side buys, measured so that the machine's drift falls on both sides alike.

    python bench/queue_ab.py --baseline REV [--rounds 10] [--requests 25] [--page NAME ...]

Needs the database that `bench/queue_bench.py` filled; run that once first. Both revisions
must read the same schema (the bench says when their migrations differ). REV's files are
exported (git archive) to a temporary directory; the working tree is the other side. Each side
is a Python process importing its own tree's app, which serves requests through the whole WSGI
stack in-process, as bench/queue_cpu.py does. Each round asks both in turn (which goes first
swaps every round) for --requests of each page, and reads their CPU (process_time) and their
PostgreSQL backend's (from /proc, 10 ms ticks, summed over all rounds).

Prints, per page, each side's median CPU a request, Python and PostgreSQL, and the median of
the rounds' ratios (working tree / REV) with their range. On a shared machine whose speed
drifts by a third within minutes, separate runs of bench/queue_cpu.py cannot tell a change of
a few percent; rounds of a few seconds, side by side, can.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# A serving side imports the app from its own tree: `--serve TREE` puts it first on the path.
TREE = Path(sys.argv[sys.argv.index("--serve") + 1]) if "--serve" in sys.argv else ROOT
sys.path.insert(0, str(TREE))

# A serving side imports nothing from bench/ (REV's copy may differ or predate what it needs),
# hence its own copies of queue_bench's reviewer password and of its /proc reading (cpu_seconds).
PASSWORD = "bench-password-not-secret"


def clock_ticks(pid: int) -> int:
    """utime + stime of a process, in clock ticks."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def queue_get(handler: Any, cookie: str, query: str) -> tuple[str, bytes]:
    """GET /claims/?query through Django's WSGI handler, in this process, with the session
    `cookie`: the response's status line and body (bench/queue_cpu.py's requests too)."""
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "GET", "PATH_INFO": "/claims/", "QUERY_STRING": query, "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "127.0.0.1", "HTTP_COOKIE": cookie,
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(b""), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
        "wsgi.multithread": False, "wsgi.multiprocess": True, "wsgi.run_once": False,
    }
    status: list[str] = []
    body = b"".join(handler(environ, lambda line, headers, exc_info=None: status.append(line)))
    return status[0], body


def serve(database_url: str) -> None:
    """One side: reads {"query", "n"} lines on stdin, answers {"cpu": [ms, ...], "pg_ticks"}."""
    os.environ.update(DATABASE_URL=database_url, DJANGO_DEBUG="0", DATABASE_CONN_MAX_AGE="3600")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "factcheck.settings")
    os.environ.setdefault("FACTCHECK_LOCAL", "1")
    os.chdir(TREE)
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection
    from django.test import Client

    client = Client()
    if not client.login(username="bench-reviewer", password=PASSWORD):
        raise SystemExit("bench-reviewer cannot log in: run bench/queue_bench.py first")
    cookie = "; ".join(f"{morsel.key}={morsel.value}" for morsel in client.cookies.values())
    handler = WSGIHandler()

    def get(query: str) -> None:
        status, _ = queue_get(handler, cookie, query)
        if not status.startswith("200"):
            raise SystemExit(f"{TREE}: GET /claims/?{query}: {status}")

    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        ask = json.loads(line)
        ticks = clock_ticks(backend)
        cpu = []
        for _ in range(ask["n"]):
            started = time.process_time()
            get(ask["query"])
            cpu.append(1000 * (time.process_time() - started))
        print(json.dumps({"cpu": cpu, "pg_ticks": clock_ticks(backend) - ticks}), flush=True)


class Side:
    def __init__(self, name: str, tree: Path, database_url: str) -> None:
        self.name = name
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve", str(tree), "--database-url", database_url],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree,
        )
        self.answer()  # ready
        self.cpu: dict[str, list[float]] = {}
        self.pg_ticks: dict[str, int] = {}

    def ask(self, query: str, n: int) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"query": query, "n": n}) + "\n")
        self.process.stdin.flush()
        return self.answer()

    def answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.name} side exited ({self.process.wait()})")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def export(revision: str, into: Path) -> None:
    archive = subprocess.run(["git", "archive", "--format=tar", revision], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, metavar="REV", help="the git revision to compare the working tree with")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--requests", type=int, default=25, help="requests per page, side and round (after 20 warm-up requests)")
    parser.add_argument("--page", action="append", default=[], help="only these pages (bench/queue_cpu.py's names)")
    args = parser.parse_args()

    from bench.pipeline_bench import setup_django
    from bench.queue_bench import middle_cursor
    from bench.queue_cpu import bench_url, queue_pages

    changed = subprocess.run(["git", "diff", "--stat", args.baseline, "--", "factcheck/*/migrations/*"], cwd=ROOT, capture_output=True, text=True).stdout
    if changed.strip():
        print(f"warning: the migrations differ from {args.baseline}'s; both sides read the bench database as it is:\n{changed}")
    url = bench_url()
    setup_django(url)
    from factcheck.claims.models import Claim

    pages = {name: query for name, query in queue_pages(middle_cursor(Claim.objects.count())).items() if not args.page or name in args.page}
    tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    with tempfile.TemporaryDirectory(prefix="queue-ab-") as directory:
        export(args.baseline, Path(directory))
        sides = [Side(args.baseline, Path(directory), url), Side("working tree", ROOT, url)]
        try:
            print(f"CPU a request, {args.rounds} rounds of {args.requests} requests a page and side; load average {os.getloadavg()[0]:.1f}")
            for name, query in pages.items():
                ratios = []
                for side in sides:
                    side.ask(query, 20)
                    side.cpu[name], side.pg_ticks[name] = [], 0
                for number in range(args.rounds):
                    medians = {}
                    for side in sides if number % 2 == 0 else reversed(sides):
                        answer = side.ask(query, args.requests)
                        side.cpu[name] += answer["cpu"]
                        side.pg_ticks[name] += answer["pg_ticks"]
                        medians[side.name] = statistics.median(answer["cpu"])
                    ratios.append(medians["working tree"] / medians[args.baseline])
                shown = [
                    f"{side.name} {statistics.median(side.cpu[name]):5.1f} ms"
                    f" (PostgreSQL {side.pg_ticks[name] * tick_ms / (args.rounds * args.requests):4.1f})"
                    for side in sides
                ]
                print(f"  {name:10s} {'   '.join(shown)}   ratio {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
        finally:
            for side in sides:
                side.close()
    return 0


if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve(sys.argv[sys.argv.index("--database-url") + 1])
    else:
        sys.exit(main())
