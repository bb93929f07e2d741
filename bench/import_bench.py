"""Bulk import benchmark: a JSON Lines (or CSV) file streamed into PostgreSQL.

    python bench/import_bench.py [--corpus ../shared/data/bbc_news/bbc_news.jsonl] [--articles 100000] [--format jsonl|csv]

Repeats the BBC corpus until --articles rows (each copy made distinct with " [copy N]" on
its title and text, so every row is a new article), writes it to a temporary file, and
imports it with the same code as `manage.py import_articles`, into a throw-away database
`<name>_import_bench` on the server of DATABASE_URL. No pipeline run is queued: this measures the
import only. Prints articles/s stored, then the rate of re-importing the same file (every
row a duplicate), and the peak resident memory of this process.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "bbc_news" / "bbc_news.jsonl"
sys.path.insert(0, str(ROOT))

from bench.pipeline_bench import TreeMemory, bench_database_url, setup_django  # noqa: E402


def write_repeated(corpus: Path, target: Path, *, articles: int, file_format: str) -> int:
    """Stream the corpus into `target` again and again; never more than one line in memory."""
    written = 0
    with open(target, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out) if file_format == "csv" else None
        if writer is not None:
            writer.writerow(["title", "text", "outlet", "category", "source_id"])
        copy = 0
        while written < articles:
            with open(corpus, encoding="utf-8") as source:
                for line in source:
                    if written >= articles:
                        break
                    if not line.strip():
                        continue
                    row = json.loads(line)
                    suffix = f" [copy {copy}]" if copy else ""
                    record = {
                        "title": row.get("title", "") + suffix,
                        "text": row["text"] + suffix,
                        "outlet": "BBC News",
                        "category": row.get("category", ""),
                        "source_id": row.get("id", ""),
                    }
                    if writer is not None:
                        writer.writerow(record.values())
                    else:
                        out.write(json.dumps(record, ensure_ascii=False) + "\n")
                    written += 1
            copy += 1
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--articles", type=int, default=100_000)
    parser.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")
    args = parser.parse_args()
    if not args.corpus.exists():
        print(f"import bench: corpus {args.corpus} not found (it lives in ../shared/data, outside the repo); skipped.")
        return 0
    setup_django(bench_database_url("import_bench"))
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from factcheck.articles.models import Article
    from factcheck.articles.services import articles_import_file

    with tempfile.TemporaryDirectory(prefix="import-bench-") as directory:
        path = Path(directory) / f"bbc-x{args.articles}.{args.format}"
        rows = write_repeated(args.corpus, path, articles=args.articles, file_format=args.format)
        size_mb = path.stat().st_size / 2**20
        baseline_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        memory = TreeMemory(os.getpid(), interval=0.05)
        started = time.perf_counter()
        batch = articles_import_file(path=path, start_pipeline=False)
        elapsed = time.perf_counter() - started
        started = time.perf_counter()
        again = articles_import_file(path=path, start_pipeline=False)
        elapsed_again = time.perf_counter() - started
        peak_mb = memory.stop() / 2**20
    stored = Article.objects.count()
    # The BBC corpus itself repeats some stories word for word: those are duplicates too.
    if batch.rows_stored != stored or batch.rows_stored + batch.rows_duplicate != rows or again.rows_duplicate != rows:
        print(f"import bench: {rows} rows gave {batch.rows_stored} new + {batch.rows_duplicate} duplicates, then {again.rows_duplicate} "
              f"duplicates on re-import ({batch.error or 'no error'})")
        return 1
    rate = batch.rows_stored / elapsed
    print(f"corpus: {args.corpus.name} repeated to {rows} rows ({stored} distinct articles), {size_mb:.0f} MB of {args.format}; "
          f"cores: {os.cpu_count()}")
    print(f"  import                 {rate:10.0f} articles/s stored ({rows / elapsed:.0f} rows/s, {elapsed:.1f} s)")
    print(f"  re-import, all dups    {rows / elapsed_again:10.0f} rows/s   ({elapsed_again:.1f} s)")
    print(f"  peak memory (RSS)      {peak_mb:10.0f} MB          (process before import: {baseline_mb:.0f} MB)")
    print(f"  targets: >= 2000 articles/s, < 500 MB: {'met' if rate >= 2000 and peak_mb < 500 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
