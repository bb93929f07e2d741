"""The queue's page and count queries, one at a time, on the queue bench's database.

    python bench/queue_search_bench.py [--repeat 40]

Reads `<name>_queue_bench` (fill it first with `python bench/queue_bench.py`: 200,000
claims) in this process, without a web server: for each view below, `repeat` times, the time of
selectors.queue_page (the page's rows, in the search's order for a search) and of
selectors.queue_count (the "N claims" line), then prints the median and p95 of each. What the
server adds on top (templates, session) is bench/queue_bench.py's to measure.
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

VIEWS: dict[str, dict[str, Any]] = {
    "unfiltered": {},
    "status=new, type=numeric, with a number": {"status": ["new"], "type": ["numeric"], "has_number": "yes"},
    "assignee=mine (My claims' shape)": {"assignee": "mine", "status": ["new", "check", "in_research", "returned"]},
    "search: deported boston": {"q": "deported boston"},
    'search: "officials deported" (phrase)': {"q": '"officials deported"'},
    "search: boston (a common word, 1 claim in 5)": {"q": "boston"},
    "search: deported boston, in the whole article": {"q": "deported boston", "in_article": "yes"},
    "search: council, in the whole article (every article)": {"q": "council", "in_article": "yes"},
}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    head, _, name = os.environ.get("DATABASE_URL", "").rpartition("/")
    name, _, query = name.partition("?")
    setup_django(f"{head}/{name}_queue_bench" + (f"?{query}" if query else ""))

    from django.contrib.auth import get_user_model

    from factcheck.claims.queue import selectors

    user = get_user_model().objects.get(username="bench-reviewer")
    print(f"{'view':55s} {'page p50':>9s} {'p95':>7s}   {'count p50':>9s} {'p95':>7s}   claims")
    for label, values in VIEWS.items():
        pages: list[float] = []
        counts: list[float] = []
        count = 0
        for _ in range(args.repeat):
            started = time.perf_counter()
            selectors.queue_page(user=user, values=values, cursor=None, page_size=50)
            pages.append(1000 * (time.perf_counter() - started))
            started = time.perf_counter()
            count = selectors.queue_count(user=user, values=values)
            counts.append(1000 * (time.perf_counter() - started))
        print(f"{label:55s} {statistics.median(pages):7.1f}ms {percentile(pages, 95):5.1f}ms   "
              f"{statistics.median(counts):7.1f}ms {percentile(counts, 95):5.1f}ms   {count:,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
