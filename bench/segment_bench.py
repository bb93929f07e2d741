"""Sentence segmentation throughput on one core: sentences per second and characters per second.

    python bench/segment_bench.py [FILE.jsonl | FILE.txt ...] [--repeat N]

Without a file it reads the BBC News articles from ../shared/data (see its README); where
that is absent (a fresh clone) it says so and falls back to the seed articles.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.nlp.segment import split_sentences  # noqa: E402 - needs the repo root on sys.path

BBC_NEWS = ROOT.parent / "shared" / "data" / "bbc_news" / "bbc_news.jsonl"
SEED_DIRS = (ROOT / "seeds", ROOT.parent / "shared" / "seeds")


def read_texts(path: Path) -> list[str]:
    if path.suffix == ".jsonl":
        with path.open(encoding="utf-8") as lines:
            return [json.loads(line)["text"] for line in lines if line.strip()]
    return [path.read_text(encoding="utf-8")]


def default_corpus() -> tuple[str, list[str]]:
    if BBC_NEWS.exists():
        return str(BBC_NEWS), read_texts(BBC_NEWS)
    print(f"BBC News data not found at {BBC_NEWS}; falling back to the seed articles.")
    for folder in SEED_DIRS:
        seeds = sorted(folder.glob("*.txt"))
        if seeds:
            return f"{folder}/*.txt", [text for seed in seeds for text in read_texts(seed)]
    sys.exit(f"No corpus: neither {BBC_NEWS} nor any seeds in {' or '.join(map(str, SEED_DIRS))}.")


def pin_to_one_core() -> str:
    # Python runs this on one thread anyway; pinning also keeps the scheduler from
    # migrating it, so the figure is per core rather than "per whatever core was free".
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to CPU {core}"
    return "single thread, not pinned"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "files", nargs="*", type=Path, help="a .jsonl with a 'text' field per line, or plain text files"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed passes over the corpus (default 5)")
    args = parser.parse_args()

    if args.files:
        missing = [str(path) for path in args.files if not path.exists()]
        if missing:
            sys.exit(f"Not found: {', '.join(missing)}")
        source = ", ".join(map(str, args.files))
        texts = [text for path in args.files for text in read_texts(path)]
    else:
        source, texts = default_corpus()

    where = pin_to_one_core()
    characters = sum(map(len, texts))
    sentences = sum(len(split_sentences(text)) for text in texts)  # also warms up the regex cache
    seconds: list[float] = []
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        for text in texts:
            split_sentences(text)
        seconds.append(time.perf_counter() - started)

    best, median = min(seconds), statistics.median(seconds)
    print(f"corpus:    {source}")
    print(f"           {len(texts):,} documents, {characters:,} characters, {sentences:,} sentences")
    print(f"python:    {sys.version.split()[0]}, {where}, {len(seconds)} passes")
    print(f"best:      {sentences / best:,.0f} sentences/s per core ({characters / best / 1e6:.1f} M chars/s)")
    print(f"median:    {sentences / median:,.0f} sentences/s per core")
    print(f"latency:   {best * 1e6 / len(texts):.0f} µs per document at best")


if __name__ == "__main__":
    main()
