"""Claim-matching speed: index build time and claims/s against a 30,000-check library.

    python bench/match_bench.py [--claims 15000] [--repeat 3]

Library: the 13,825 Snopes checks of ../shared/data/claim_matching plus the 12,836 LIAR
statements (../shared/data/liar), topped up to 30,000 with the Snopes subtitles as extra
entries. Claims: the first --claims sentences of the BBC News corpus, as the pipeline would
send them (split by pipeline.nlp.segment), matched in batches of 1,024 like the CLI. Prints
medians of --repeat runs, wall-clock and CPU time of this process.
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.nlp.matching import MatchIndex  # noqa: E402
from pipeline.nlp.segment import split_sentences  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
LIBRARY_SIZE = 30_000
BATCH = 1024


def library(data: Path) -> list[dict[str, str]]:
    entries: list[dict[str, str]] = []
    extra: list[dict[str, str]] = []
    with open(data / "claim_matching" / "vclaims.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            entries.append({"id": row["vclaim_id"], "claim": row["vclaim"], "title": row["title"], "summary": row["subtitle"], "date": row["date"]})
            extra.append({"id": row["vclaim_id"] + "/subtitle", "claim": row["subtitle"] or row["title"]})
    for split in ("train", "valid", "test"):
        with open(data / "liar" / f"{split}.tsv", encoding="utf-8") as handle:
            for line in handle:
                fields = line.rstrip("\n").split("\t")
                entries.append({"id": f"liar/{fields[0]}", "claim": fields[2], "rating": fields[1]})
    return (entries + extra)[:LIBRARY_SIZE]


def claims(data: Path, count: int) -> list[str]:
    out: list[str] = []
    with open(data / "bbc_news" / "bbc_news.jsonl", encoding="utf-8") as handle:
        for line in handle:
            text = json.loads(line)["text"]
            out.extend(text[s.start : s.end] for s in split_sentences(text))
            if len(out) >= count:
                break
    return out[:count]


def timed(function):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=15_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if not (args.data / "liar").is_dir() or not (args.data / "bbc_news").is_dir():
        print(f"match bench: {args.data} lacks liar/ or bbc_news/ (it lives outside the repo); skipped.")
        return 0
    entries = library(args.data)
    texts = claims(args.data, args.claims)
    builds, runs = [], []
    index = None
    for _ in range(args.repeat):
        index, wall, cpu = timed(lambda: MatchIndex.build(entries))
        builds.append((wall, cpu))
    assert index is not None
    size = len(pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
    for _ in range(args.repeat):
        _, wall, cpu = timed(lambda: [index.match(texts[i : i + BATCH], 5) for i in range(0, len(texts), BATCH)])
        runs.append((wall, cpu))
    build_wall = statistics.median(w for w, _ in builds)
    build_cpu = statistics.median(c for _, c in builds)
    match_wall = statistics.median(w for w, _ in runs)
    match_cpu = statistics.median(c for _, c in runs)
    print(f"library: {len(entries):,} checks; claims: {len(texts):,} BBC sentences; medians of {args.repeat}")
    print(f"index build: {build_wall:.1f} s wall, {build_cpu:.1f} s CPU; pickled index {size / 2**20:.1f} MiB")
    print(f"matching: {match_wall:.2f} s wall ({len(texts) / match_wall:,.0f} claims/s), {match_cpu:.2f} s CPU ({len(texts) / match_cpu:,.0f} claims/CPU-s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
