"""Export benchmark: the claims CSV, the ClaimReview feed and the PDF report on generated data.

    python bench/export_bench.py [--claims 50000] [--verdicts 200] [--repeat 3]

Fills a throw-away database `<name>_export_bench` on DATABASE_URL's server with --claims
claims (ten per article, five outlets, twenty speakers) and publishes --verdicts of them
through the workflow services (drafted by a reviewer, approved by an editor). Then, each
--repeat times, through the real views: streams the whole CSV, streams the ClaimReview feed,
renders the PDF report over every verdict. Prints medians: rows/s, seconds, and the peak
resident memory of this process while the export ran next to its resident memory before.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pipeline_bench import bench_database_url, setup_django  # noqa: E402


def rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRss:
    """This process's peak resident memory while it runs, sampled every 10 ms."""

    def __init__(self) -> None:
        self.peak = rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, rss())

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss())
        return self.peak


def generate(claims: int, verdicts: int) -> None:
    from factcheck.accounts.roles import Role
    from factcheck.accounts.services import user_create_with_role
    from factcheck.articles.models import Article, Outlet
    from factcheck.claims.models import Claim, ClaimCluster
    from factcheck.claims.workflow import services

    reviewer = user_create_with_role(username="bench-reviewer", role=Role.REVIEWER, password="bench-password-123")[0]
    editor = user_create_with_role(username="bench-editor", role=Role.EDITOR, password="bench-password-123")[0]
    outlets = [Outlet.objects.create(name=f"Outlet {n}") for n in range(5)]
    sentence = "Officials said the programme cost {n} million dollars over three years, twice what the city estimated."
    per_article = 10
    articles = Article.objects.bulk_create(
        Article(outlet=outlets[n % 5], title=f"Story {n}", text=f"Story {n}. " + "Words of the article. " * 40, content_hash=f"{n:064x}")
        for n in range(claims // per_article + 1)
    )
    batch: list[Claim] = []
    for n in range(claims):
        batch.append(
            Claim(
                article=articles[n // per_article], claim_key=f"{n:040x}", sentence=sentence.format(n=n), start_offset=n % per_article * 20,
                end_offset=n % per_article * 20 + 10, score=0.5 + (n % 50) / 100, priority=float(n % 1000) / 10, claim_type="numeric",
                quantities=[{"value": n, "unit": "dollars"}], speaker=f"Speaker {n % 20}", speaker_title="Official",
                attribution="reported",
            )
        )
        if len(batch) == 5000:
            Claim.objects.bulk_create(batch)
            batch = []
    Claim.objects.bulk_create(batch)
    # The claims to give verdicts to are in research: a claim alone is its own cluster, under its key.
    ClaimCluster.objects.filter(cluster_key__in=[f"{n:040x}" for n in range(verdicts)]).update(status=Claim.Status.IN_RESEARCH)
    ratings = ["true", "mostly_true", "half_true", "mostly_false", "false", "misleading", "unverifiable"]
    for n, claim in enumerate(Claim.objects.filter(cluster__status=Claim.Status.IN_RESEARCH).order_by("id")):
        services.claim_assign(claim=claim, actor=reviewer, assignee=reviewer)
        evidence = services.evidence_add(claim=claim, actor=reviewer, kind="official_statistic", url=f"https://data.example.gov/{n}", title=f"Dataset {n}")
        verdict = services.verdict_draft(
            claim=claim, actor=reviewer, rating=ratings[n % 7], headline=f"Verdict headline {n}",
            explanation="The published figures show a different total. " * 4, evidence_ids=[evidence.pk],
        )
        services.verdict_approve(verdict=verdict, actor=editor)


def measure(label: str, run: Callable[[], int], repeat: int, unit: str) -> None:
    times, peaks, counts, before = [], [], [], []
    for _ in range(repeat):
        gc.collect()
        before.append(rss())
        sampler = PeakRss()
        start = time.perf_counter()
        counts.append(run())
        times.append(time.perf_counter() - start)
        peaks.append(sampler.stop())
    seconds = statistics.median(times)
    count = counts[0]
    print(
        f"{label}: {count:,} {unit} in {seconds:.2f} s (median of {repeat}) = {count / seconds:,.0f} {unit}/s; "
        f"RSS {statistics.median(before) / 2**20:.0f} MB before, {statistics.median(peaks) / 2**20:.0f} MB peak"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=50_000)
    parser.add_argument("--verdicts", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    setup_django(bench_database_url("export_bench"))
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    settings.ALLOWED_HOSTS = ["testserver", *settings.ALLOWED_HOSTS]
    settings.FACTCHECK_REPORT_MAX_VERDICTS = max(settings.FACTCHECK_REPORT_MAX_VERDICTS, args.verdicts)
    start = time.perf_counter()
    generate(args.claims, args.verdicts)
    print(f"generated {args.claims:,} claims and {args.verdicts:,} published verdicts in {time.perf_counter() - start:.0f} s")

    from django.test import Client
    from pypdf import PdfReader

    client = Client()
    assert client.login(username="bench-reviewer", password="bench-password-123")

    def csv_export() -> int:
        response = client.get("/exports/claims.csv")
        return sum(chunk.count(b"\n") for chunk in response.streaming_content) - 1

    def feed() -> int:
        response = client.get("/factchecks/feed.jsonld")
        return sum(chunk.count(b'"@type": "ClaimReview"') for chunk in response.streaming_content)

    pages: list[int] = []

    def pdf() -> int:
        response = client.get("/exports/report.pdf?date_from=2000-01-01")
        assert response.status_code == 200, response.content[:500]
        pages.append(len(PdfReader(io.BytesIO(response.content)).pages))
        return args.verdicts

    measure("claims CSV (streamed)", csv_export, args.repeat, "rows")
    measure("ClaimReview feed (streamed)", feed, args.repeat, "documents")
    measure("PDF report over every verdict", pdf, args.repeat, "verdicts")
    print(f"PDF report: {pages[0]} pages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
