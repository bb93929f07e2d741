"""Claim-matching speed against a 30,000-check library: building its index, keeping it
(bytes) and reading it back, and claims/s, with what the verification stage costs of it.

    python bench/match_bench.py [--claims 15000] [--repeat 3] [--candidates 20]

Library: the 13,825 Snopes checks of ../shared/data/claim_matching plus the 12,836 LIAR
statements (../shared/data/liar), topped up to 30,000 with the Snopes subtitles as extra
entries (3,339 entries "<id>/subtitle" whose claim is a check's subtitle). Claims: the first
--claims sentences of the BBC News corpus, as the pipeline would send them (split by
pipeline.nlp.segment), matched in batches of 1,024 like the CLI, by an index read back from
its bytes as each Spark worker reads it, with the job's 20 candidates per claim. Prints
medians of --repeat runs, wall-clock and CPU time of this process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.match_library import PreparedLibrary  # noqa: E402
from pipeline.nlp.matching import MatchConfig, MatchIndex, library_key, read_artifact  # noqa: E402
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


def match_all(index: MatchIndex, texts: list[str], min_score: float) -> None:
    for start in range(0, len(texts), BATCH):
        index.match(texts[start : start + BATCH], 5, min_score=min_score)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=15_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--candidates", type=int, default=20, help="BM25 candidates re-ranked per claim (the job's MATCH_CANDIDATES)")
    parser.add_argument("--min-score", type=float, default=0.01, help="matches kept from this probability (the job's MATCH_MIN_SCORE)")
    args = parser.parse_args()
    if not (args.data / "liar").is_dir() or not (args.data / "bbc_news").is_dir():
        print(f"match bench: {args.data} lacks liar/ or bbc_news/ (it lives outside the repo); skipped.")
        return 0
    entries = library(args.data)
    texts = claims(args.data, args.claims)
    artifact = read_artifact()
    config = MatchConfig(candidates=args.candidates)
    builds, loads, runs, unverified = [], [], [], []
    data = b""
    for _ in range(args.repeat):
        built, wall, cpu = timed(lambda: MatchIndex.build(entries, artifact, config))
        builds.append((wall, cpu))
        key = library_key(entries, artifact, config)
        data = built.to_bytes(key)
    prepared = PreparedLibrary(key, data, {}, args.candidates)
    for _ in range(args.repeat):
        # A fresh index each time, as each run's Python workers have: its word caches cold.
        loaded, wall, cpu = timed(lambda: prepared.index(artifact))
        loads.append((wall, cpu))
        _, wall, cpu = timed(partial(match_all, loaded, texts, args.min_score))
        runs.append((wall, cpu))
        # The same index without its verification stage (pipeline.nlp.verification): what it costs.
        verifier, loaded.verifier = loaded.verifier, None
        _, wall, cpu = timed(partial(match_all, loaded, texts, args.min_score))
        unverified.append((wall, cpu))
        loaded.verifier = verifier

    def median(values: list[tuple[float, float]], which: int) -> float:
        return statistics.median(value[which] for value in values)

    match_wall, match_cpu = median(runs, 0), median(runs, 1)
    print(f"factchecks: {len(entries):,} checks; claims: {len(texts):,} BBC sentences; {args.candidates} candidates, kept from {args.min_score}")
    print(f"medians of {args.repeat}")
    print(f"index build (a new library):   {median(builds, 0):6.1f} s wall, {median(builds, 1):5.1f} s CPU; kept as {len(data) / 2**20:.1f} MiB")
    print(f"index read back (each worker): {median(loads, 0):6.2f} s wall, {median(loads, 1):5.2f} s CPU")
    print(f"matching: {match_wall:.2f} s wall ({len(texts) / match_wall:,.0f} claims/s), {match_cpu:.2f} s CPU ({len(texts) / match_cpu:,.0f} claims/CPU-s)")
    plain_cpu = median(unverified, 1)
    print(f"  of which verification (same claims, its stage left out): {match_cpu - plain_cpu:.2f} s CPU ({match_cpu / plain_cpu:.2f}x the re-rankers alone)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
