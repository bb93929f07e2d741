"""REST API latency over 200,000 claims: is a deep keyset page as cheap as the first?

    python bench/api_bench.py [--claims 200000] [--articles 4000] [--outlets 300] [--requests 40] [--reuse]

Fills a throw-away database `<name>_api_bench` on DATABASE_URL's server with the queue
benchmark's data (bench/queue_bench.py: realistic priorities with ties, statuses, types,
quantities, speakers, clusters), gives the reviewer an API token and times GET requests in
process through Django's full request stack (token authentication, role check, filters,
keyset page, serialisation to JSON), one request at a time, DEBUG off. Prints the median
and p95 per page and the number of SQL queries each page made.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pipeline_bench import bench_database_url, setup_django  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=200_000)
    parser.add_argument("--articles", type=int, default=4000)
    parser.add_argument("--outlets", type=int, default=300)
    parser.add_argument("--requests", type=int, default=40, help="timed requests per page (after 5 warm-up ones)")
    parser.add_argument("--reuse", action="store_true", help="keep the bench database of the last run instead of refilling it")
    args = parser.parse_args()

    if args.reuse:
        head, _, name = os.environ.get("DATABASE_URL", "").rpartition("/")
        name, _, query = name.partition("?")
        setup_django(f"{head}/{name}_api_bench" + (f"?{query}" if query else ""))
    else:
        setup_django(bench_database_url("api_bench"))
        from django.core.management import call_command

        from bench.queue_bench import fill

        call_command("migrate", verbosity=0)
        fill(claims=args.claims, articles=args.articles, outlets=args.outlets)

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from factcheck.api.models import ApiToken
    from factcheck.api.services import api_token_create
    from factcheck.claims.models import Claim, ClaimCluster
    from factcheck.claims.queue.filters import QUEUE_ORDER, encode_cursor

    setup_test_environment()  # the test client's host; DEBUG stays off
    reviewer = get_user_model().objects.get(username="bench-reviewer")
    ApiToken.objects.filter(user=reviewer, name="bench").delete()
    _, secret = api_token_create(user=reviewer, name="bench")
    client = Client(HTTP_AUTHORIZATION=f"Token {secret}")

    total = Claim.objects.count()
    middle = Claim.objects.order_by(*QUEUE_ORDER).only("id", "queue_rank")[total // 2]
    last = Claim.objects.order_by("queue_rank", "id").only("id", "queue_rank")[60]
    cluster_id = ClaimCluster.objects.order_by("-size", "id").values_list("id", flat=True)[0]
    pages = {
        "claims, first page (50)": "/api/v1/claims/",
        f"claims, keyset page half way (~claim {total // 2:,})": f"/api/v1/claims/?cursor={encode_cursor(middle.queue_rank, middle.pk)}",
        "claims, keyset page at the very end": f"/api/v1/claims/?cursor={encode_cursor(last.queue_rank, last.pk)}",
        "claims, 200 a page": "/api/v1/claims/?page_size=200",
        "claims, filtered (status=new, type=numeric, with a number)": "/api/v1/claims/?status=new&type=numeric&has_number=yes",
        "claims, search (q=deported boston)": "/api/v1/claims/?q=deported+boston",
        "claim detail": f"/api/v1/claims/{middle.pk}/",
        "clusters, first page": "/api/v1/clusters/",
        "clusters with a new appearance from 'Lyons'": "/api/v1/clusters/?status=new&speaker=lyons",
        "cluster detail (largest)": f"/api/v1/clusters/{cluster_id}/",
        "verdicts, first page": "/api/v1/verdicts/",
    }
    print(f"{total:,} claims; {args.requests} sequential requests per page after 5 warm-up; in process, token auth; {os.cpu_count()} cores")
    for name, url in pages.items():
        for _ in range(5):
            assert client.get(url).status_code == 200, url
        timings = []
        for _ in range(args.requests):
            started = time.perf_counter()
            response = client.get(url)
            timings.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, url
        with CaptureQueriesContext(connection) as queries:
            body = client.get(url).json()
        rows = f"{len(body['results']):3d} rows" if "results" in body else "one object"
        p95 = statistics.quantiles(timings, n=20)[-1]
        print(f"  {name:62s} median {statistics.median(timings):6.1f} ms  p95 {p95:6.1f} ms  {len(queries):2d} queries  {rows}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
