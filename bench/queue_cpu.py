"""CPU per queue page, in one process, through the whole WSGI stack (middleware, session,
auth, view, templates): what one gunicorn worker spends on a request, measured with
process_time so that other work on the machine does not count.

    python bench/queue_cpu.py [--requests 200] [--profile PAGE]

Needs the database that `bench/queue_bench.py` filled (200,000 claims); run that once first.
Prints, per page, the median and p90 CPU milliseconds of this process, the PostgreSQL
backend's CPU per request (from /proc, 10 ms ticks averaged over all requests), the wall
median and the query count. `--profile first` prints a cProfile of that page instead.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pipeline_bench import setup_django  # noqa: E402
from bench.queue_ab import queue_get  # noqa: E402
from bench.queue_bench import PASSWORD, cpu_seconds, cpu_since  # noqa: E402


def bench_url() -> str:
    head, _, name = os.environ.get("DATABASE_URL", "").rpartition("/")
    name, _, query = name.partition("?")
    return f"{head}/{name}_queue_bench" + (f"?{query}" if query else "")


def queue_pages(middle: str) -> dict[str, str]:
    """The pages measured (their query strings), by short name: those of bench/queue_bench.py."""
    return {
        "first": "",
        "filtered": "status=new&type=numeric&has_number=yes",
        "deep": f"after={middle}",
        "search": "q=deported+boston",
        "quoted": "q=%22deported+boston%22",
        "word": "q=boston",
        "article": "q=council&in_article=yes",
        "metadata": "meta=category%3Apolitics",
        "metastatus": "meta=category%3Atech&status=check",
        "title": "article_title=housing+plan",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200, help="requests per page (after 20 warm-up requests)")
    parser.add_argument("--show-queries", action="store_true", help="print each page's SQL statements")
    parser.add_argument(
        "--profile", choices=sorted(queue_pages("")), help="print a cProfile of one page",
    )
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_DEBUG", "0")
    # One connection for the whole run, so its backend's CPU can be read from /proc.
    os.environ.setdefault("DATABASE_CONN_MAX_AGE", "3600")
    setup_django(bench_url())
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection
    from django.test import Client

    from bench.queue_bench import middle_cursor
    from factcheck.claims.models import Claim

    client = Client()
    if not client.login(username="bench-reviewer", password=PASSWORD):
        raise SystemExit("bench-reviewer cannot log in: run bench/queue_bench.py first")
    cookie = "; ".join(f"{morsel.key}={morsel.value}" for morsel in client.cookies.values())
    pages = queue_pages(middle_cursor(Claim.objects.count()))
    handler = WSGIHandler()

    def get(query: str) -> int:
        status, body = queue_get(handler, cookie, query)
        # A page with no rows (the quoted phrase: no claim has it) shows the results' frame all the same.
        if not status.startswith("200") or b'id="queue-results"' not in body:
            raise SystemExit(f"GET /claims/?{query}: {status}")
        return len(body)

    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]

    if args.profile:
        query = pages[args.profile]
        for _ in range(20):
            get(query)
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        for _ in range(args.requests):
            get(query)
        profiler.disable()
        stats = pstats.Stats(profiler).sort_stats(os.environ.get("PROFILE_SORT", "cumulative"))
        stats.print_stats(60)
        return 0

    print(f"CPU per request, {args.requests} requests per page after 20 warm-up; load average {os.getloadavg()[0]:.1f}")
    for name, query in pages.items():
        for _ in range(20):
            get(query)
        # request_started resets connection.queries, so count with a wrapper instead.
        statements: list[str] = []

        def record(execute: Any, sql: str, params: Any, many: bool, context: Any, statements: list[str] = statements) -> Any:
            statements.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(record):
            size = get(query)
        if args.show_queries:
            print("\n".join(f"    {sql[:200]}" for sql in statements))
        cpu, wall = [], []
        backend_before = cpu_seconds([backend])
        for _ in range(args.requests):
            started_cpu, started = time.process_time(), time.perf_counter()
            get(query)
            cpu.append(time.process_time() - started_cpu)
            wall.append(time.perf_counter() - started)
        backend_ms = 1000 * cpu_since(backend_before, [backend]) / args.requests
        cpu.sort()
        print(f"  {name:9s} CPU median {1000 * statistics.median(cpu):5.1f} ms  p90 {1000 * cpu[int(0.9 * len(cpu))]:5.1f} ms  "
              f"PostgreSQL {backend_ms:4.1f} ms  wall median {1000 * statistics.median(wall):5.1f} ms  "
              f"{len(statements)} queries  {size // 1024} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
