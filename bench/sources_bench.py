"""Sources benchmark: polls of a local news site holding 1,000 feeds and 20,000 article pages.

    python bench/sources_bench.py [--feeds 1000] [--pages 20000] [--seconds 90] [--no-pipeline]

The site (tests/sources/newsserver.py, in a child process so its memory is not counted) serves
the BBC corpus repeated to --pages distinct pages (each copy's text ends with " [copy N]") and
--feeds RSS feeds of --pages/--feeds items each. The bench polls the feeds one after another
with the workers' own code (services.source_poll: fetch, robots.txt, extraction, the article
importer's write, one run per poll) into a throw-away `<db>_sources_bench` database, with
the per-host delay at 0 (every feed is on one host here), until every feed is polled or
--seconds have passed. Pipeline runs are created but not started. Then, unless --no-pipeline:
one new item is put in one feed, that feed is polled, and the run it queued is executed by
spark-submit as the worker would: the time from the new item to its claims in the queue.

Prints: articles fetched and stored per second, peak resident memory of this process, and
that latency split into the poll and the pipeline run.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pipeline_bench import TreeMemory, bench_database_url, setup_django  # noqa: E402
from tests.sources.newsserver import BBC, NewsServer, SiteState, Story, load_stories  # noqa: E402


class RepeatedStories(Sequence[Story]):
    """The corpus repeated to `size` distinct stories, made on demand (never all in memory)."""

    def __init__(self, base: list[Story], size: int) -> None:
        self.base, self.size = base, size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, n):  # type: ignore[no-untyped-def, override]
        if isinstance(n, slice):
            return [self[i] for i in range(*n.indices(self.size))]
        if not 0 <= n < self.size:
            raise IndexError(n)
        story = self.base[n % len(self.base)]
        copy = n // len(self.base)
        suffix = f" [copy {copy}]" if copy else ""
        return Story(title=story.title + suffix, text=story.text + suffix, category=story.category)


def serve_site(pages: int, feeds: int, ready: multiprocessing.Queue, new_items: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    stories = RepeatedStories(load_stories(), pages + 1)
    per_feed = pages // feeds
    state = SiteState(stories=stories, feeds={f"f{i}": list(range(i * per_feed, (i + 1) * per_feed)) for i in range(feeds)})
    server = NewsServer(state)
    ready.put(server.base_url)
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    # The parent asks for a new item in a feed: (feed name, article number).
    while True:
        name, number = new_items.get()
        if name is None:
            break
        state.feeds[name] = [number, *state.feeds[name]]
        ready.put("added")
    server.shutdown()


def main() -> int:  # noqa: PLR0915 - one measured sequence, read top to bottom
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--feeds", type=int, default=1000)
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=90.0, help="stop polling after this long (the rate is measured on what was done)")
    parser.add_argument("--no-pipeline", action="store_true", help="skip the new-item-to-claims latency (no spark-submit)")
    args = parser.parse_args()
    if not BBC.is_file():
        print(f"sources bench: the BBC corpus {BBC} is not found (it lives in ../shared/data; set FACTCHECK_SHARED_DATA); skipped.")
        return 0
    os.environ["FACTCHECK_FETCH_HOST_DELAY_SECONDS"] = "0"
    os.environ["FACTCHECK_FETCH_ALLOWED_HOSTS"] = "localhost"
    setup_django(bench_database_url("sources_bench"))
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from factcheck.articles.models import Article
    from factcheck.claims.models import Claim
    from factcheck.runs.models import PipelineRun
    from factcheck.sources import services
    from factcheck.sources.models import Source, SourcePoll

    context = multiprocessing.get_context("fork")
    ready: multiprocessing.Queue = context.Queue()  # type: ignore[type-arg]
    new_items: multiprocessing.Queue = context.Queue()  # type: ignore[type-arg]
    site = context.Process(target=serve_site, args=(args.pages, args.feeds, ready, new_items), daemon=True)
    site.start()
    base_url = ready.get(timeout=60)
    try:
        sources = [
            services.source_create(name=f"Outlet {i % 50}", url=f"{base_url}/feeds/f{i}.rss", max_items=args.pages) for i in range(args.feeds)
        ]
        memory = TreeMemory(os.getpid(), interval=0.05)
        started = time.perf_counter()
        polled = 0
        for source in sources:
            if time.perf_counter() - started > args.seconds:
                break
            services.source_poll(source_id=source.pk)
            polled += 1
        elapsed = time.perf_counter() - started
        peak_mb = memory.stop() / 2**20
        stored = Article.objects.count()
        failed = SourcePoll.objects.filter(status=SourcePoll.Status.FAILED).count()
        item_errors = sum(SourcePoll.objects.values_list("items_failed", flat=True))
        known = sum(SourcePoll.objects.values_list("items_known", flat=True))
        runs = PipelineRun.objects.count()
        print(f"site: {args.feeds} feeds, {args.pages} pages (BBC corpus repeated), one host; cores: {os.cpu_count()}")
        extent = "all" if polled == args.feeds else f"stopped at --seconds {args.seconds:g}"
        print(f"  polled                 {polled} of {args.feeds} feeds in {elapsed:.1f} s ({extent})")
        print(f"  articles stored        {stored:10d}   ({known} items recognised as stored, {item_errors} failed, {failed} polls failed, {runs} runs queued)")
        print(f"  fetched and stored     {stored / elapsed:10.1f} articles/s")
        print(f"  peak memory (RSS)      {peak_mb:10.0f} MB")
        if args.no_pipeline:
            return 0
        # A new item in a feed: poll that feed, then run the pipeline on what the poll queued.
        source = Source.objects.get(url=f"{base_url}/feeds/f0.rss")
        Source.objects.filter(pk=source.pk).update(etag="", last_modified="")
        new_items.put(("f0", args.pages))
        ready.get(timeout=10)
        from factcheck.runs.tasks import run_pipeline

        started = time.perf_counter()
        poll = services.source_poll(source_id=source.pk)
        polled_at = time.perf_counter()
        if poll is None or poll.run is None:
            print(f"  new item: the poll queued no run ({poll.error if poll else 'not polled'})")
            return 1
        run_pipeline(poll.run.pk)  # as the worker runs it: spark-submit over the poll's article
        done_at = time.perf_counter()
        run = PipelineRun.objects.get(pk=poll.run.pk)
        claims = Claim.objects.filter(article__in=Article.objects.filter(import_batch=poll.import_batch)).count()
        print(f"  new item to claims     {done_at - started:10.1f} s  (poll {polled_at - started:.1f} s, pipeline run {done_at - polled_at:.1f} s: "
              f"{run.status}, {claims} claims in the queue)")
        return 0 if run.status == PipelineRun.Status.SUCCEEDED and claims else 1
    finally:
        new_items.put((None, None))
        site.join(timeout=10)
        if site.is_alive():
            site.kill()


if __name__ == "__main__":
    sys.exit(main())
