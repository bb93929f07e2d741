"""HTML extraction on hostile and large pages: seconds per page (medians of 3).

    python bench/html_bench.py

Nested pages (n <div>s, each opened inside the last) are refused at MAX_DEPTH; the same
pages are then parsed with the depth limit lifted, to show that the parse itself is linear.
A flat page of n sibling paragraphs is what a very long real article looks like.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from factcheck.articles import htmltext  # noqa: E402 - needs the repo root on sys.path


def median_seconds(call: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        with contextlib.suppress(htmltext.HtmlRefused):
            call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    for n in (40_000, 400_000):
        nested = "<html><body>" + "<div>x" * n + "</div>" * n + "</body></html>"
        flat = "<html><body>" + "<p>Short paragraph.</p>" * n + "</body></html>"
        refused = median_seconds(lambda page=nested: htmltext.html_to_document(page))
        limit = htmltext.MAX_DEPTH
        htmltext.MAX_DEPTH = 10 * n
        lifted = median_seconds(lambda page=nested: htmltext.html_to_document(page, time_limit=600))
        htmltext.MAX_DEPTH = limit
        whole = median_seconds(lambda page=flat: htmltext.html_to_document(page, time_limit=600))
        print(
            f"{n:>7,} nested <div>s: refused in {refused:.3f} s; parsed with no depth limit in {lifted:.2f} s | "
            f"{n:>7,} flat <p>s ({len(flat) / 1e6:.1f} MB): {whole:.2f} s"
        )


if __name__ == "__main__":
    main()
