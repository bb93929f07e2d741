"""The queue's walks alone: each page's walk statement (a read of claims down the stored order,
`ORDER BY queue_rank DESC ... LIMIT`) timed in PostgreSQL, without gunicorn, wrk or the page.

    python bench/queue_walks.py [--runs 12] [--page NAME ...] [--without-index NAME]

Needs the database that `bench/queue_bench.py` filled; run that once first. Each page of
bench/queue_cpu.py is requested once as the bench reviewer, its walk statements are captured
with their parameters, and each is run `--runs` rounds of 8 times (after 2 unmeasured), planned
as a page plans it (no parallel workers: factcheck.postgres.base.serial_plans). Prints each
walk's median and quartiles in milliseconds and its plan's heap fetches and buffers.

`--without-index NAME` compares the index NAME with what the planner does without it: each
round also runs the statement in a transaction that drops NAME and rolls back, alternating, so
both sides share the machine's drift (on a shared machine a load test's spells differ by more
than many a change). Keep the index the other side needs present, too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pipeline_bench import setup_django  # noqa: E402
from bench.queue_bench import PASSWORD  # noqa: E402
from bench.queue_cpu import bench_url, queue_pages  # noqa: E402

ROUND = 8


def captured_walks(query: str) -> list[str]:
    """The walk statements one GET /claims/?query runs, their parameters bound."""
    import psycopg
    from django.db import connection
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")
    if not client.login(username="bench-reviewer", password=PASSWORD):
        raise SystemExit("bench-reviewer cannot log in: run bench/queue_bench.py first")
    walks: list[str] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if 'FROM "claims"' in sql and '"queue_rank" DESC' in sql and "LIMIT" in sql:
            walks.append(psycopg.ClientCursor(connection.connection).mogrify(sql, params) if params else sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        response = client.get(f"/claims/?{query}")
    if response.status_code != 200:
        raise SystemExit(f"GET /claims/?{query}: {response.status_code}")
    return walks


def plan_figures(conn: Any, statement: str) -> str:
    lines = [row[0] for row in conn.execute(f"EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) {statement}")]
    fetches = sum(int(line.split(":")[1]) for line in lines if "Heap Fetches:" in line)
    buffers = next((line.strip() for line in lines if "Buffers:" in line), "")
    return f"heap fetches {fetches}, {buffers.removeprefix('Buffers: ')}"


def timed(conn: Any, statement: str) -> list[float]:
    for _ in range(2):
        conn.execute(statement).fetchall()
    seconds = []
    for _ in range(ROUND):
        started = time.perf_counter()
        conn.execute(statement).fetchall()
        seconds.append(1000 * (time.perf_counter() - started))
    return seconds


def summary(values: list[float]) -> str:
    low, _, high = statistics.quantiles(values, n=4)
    return f"median {statistics.median(values):6.2f} ms (quartiles {low:.2f}-{high:.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=12, help=f"rounds of {ROUND} runs per statement (and side)")
    parser.add_argument("--page", action="append", default=[], help="only these pages (bench/queue_cpu.py's names)")
    parser.add_argument("--without-index", metavar="NAME", help="alternate each round with this index dropped (rolled back)")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_DEBUG", "0")
    url = bench_url()
    setup_django(url)
    import psycopg
    from psycopg import sql

    from bench.queue_bench import middle_cursor
    from factcheck.claims.models import Claim

    pages = queue_pages(middle_cursor(Claim.objects.count()))
    unknown = set(args.page) - set(pages)
    if unknown:
        raise SystemExit(f"no such page: {', '.join(sorted(unknown))} (pages: {', '.join(pages)})")
    chosen = {name: query for name, query in pages.items() if not args.page or name in args.page}
    print(f"walk statements, {args.runs} rounds of {ROUND} runs; load average {os.getloadavg()[0]:.1f}")
    with psycopg.connect(url) as conn:
        conn.execute("SET max_parallel_workers_per_gather = 0")
        conn.commit()
        for name, query in chosen.items():
            for number, statement in enumerate(captured_walks(query), start=1):
                with_index: list[float] = []
                without: list[float] = []
                for _ in range(args.runs):
                    with_index += timed(conn, statement)
                    conn.rollback()
                    if args.without_index:
                        conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(args.without_index)))
                        without += timed(conn, statement)
                        conn.rollback()
                print(f"  {name:10s} walk {number}: {summary(with_index)}; {plan_figures(conn, statement)}")
                if args.without_index:
                    print(f"  {'':10s}   without {args.without_index}: {summary(without)}")
                    conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(args.without_index)))
                    print(f"  {'':10s}   {plan_figures(conn, statement)}")
                conn.rollback()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
