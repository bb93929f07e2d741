"""HTML extraction (trafilatura behind the hostile-input limits) on hostile, long and real
pages: seconds per page (medians of 3).

    python bench/html_bench.py

Nested pages (n <div>s, each opened inside the last) are refused at MAX_DEPTH and flat pages
of more than MAX_ELEMENTS paragraphs at that count, both by one streaming read before
trafilatura builds anything. A page of 20,000 distinct paragraphs (under the limit) is what a
very long article looks like; the real pages are shared/data/web_pages/pages when present.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
REAL_PAGES = Path(os.environ.get("FACTCHECK_SHARED_DATA") or ROOT.parent / "shared" / "data") / "web_pages" / "pages"

from factcheck.articles import htmltext  # noqa: E402 - needs the repo root on sys.path


def median_seconds(call: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        with contextlib.suppress(htmltext.HtmlRefused):
            call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def outcome(page: str) -> str:
    try:
        htmltext.html_to_document(page)
    except htmltext.HtmlRefused:
        return "refused"
    return "extracted"


def main() -> None:
    for n in (40_000, 400_000):
        nested = "<html><body>" + "<div>x" * n + "</div>" * n + "</body></html>"
        flat = "<html><body>" + "<p>Short paragraph.</p>" * n + "</body></html>"
        refused_nested = median_seconds(lambda page=nested: htmltext.html_to_document(page))
        refused_flat = median_seconds(lambda page=flat: htmltext.html_to_document(page))
        print(
            f"{n:>7,} nested <div>s: {outcome(nested)} in {refused_nested:.3f} s | "
            f"{n:>7,} flat <p>s ({len(flat) / 1e6:.1f} MB): {outcome(flat)} in {refused_flat:.3f} s"
        )
    long_page = "<html><body><article>" + "".join(f"<p>Paragraph {n} of a very long article.</p>" for n in range(20_000)) + "</article></body></html>"
    seconds = median_seconds(lambda: htmltext.html_to_document(long_page))
    print(f" 20,000 distinct <p>s ({len(long_page) / 1e6:.1f} MB), under the limit: extracted in {seconds:.2f} s")
    if REAL_PAGES.is_dir():
        pages = [path.read_bytes().decode("utf-8", errors="replace") for path in sorted(REAL_PAGES.glob("*.html"))]
        each = [median_seconds(lambda page=page: htmltext.html_to_document(page)) for page in pages]
        print(f"{len(pages)} real news pages: median {statistics.median(each) * 1000:.0f} ms, slowest {max(each) * 1000:.0f} ms")
    else:
        print(f"real pages: {REAL_PAGES} not found (set FACTCHECK_SHARED_DATA); skipped.")


if __name__ == "__main__":
    main()
