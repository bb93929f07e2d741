"""What matching a few new library entries against a large queue costs: the whole queue
re-ranked (`match_claims_against`, as factchecks_match_new did before issue 31) against only
the claims that have a new entry among their candidates (`match_new_entries`, as it does now).

    python bench/match_new_bench.py [--claims 121000] [--new 2] [--library 30000]

Library: the Snopes checks of ../shared/data/claim_matching and the LIAR statements
(bench/match_bench.py's library, --library entries), the last --new of them "new". Queue:
--claims sentences of the BBC News corpus, repeated as needed (one claim a sentence, undated).
Each way runs in its own process (for its own peak memory): wall-clock and CPU seconds of the
whole call (index build, selection, re-ranking), peak RSS, and whether the stored rows (the
claims whose top list now holds a new entry) are the same both ways.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.match_bench import DATA, library  # noqa: E402
from factcheck.factchecks.matching import ClaimText, LibraryEntry, match_claims_against, match_new_entries  # noqa: E402
from pipeline.nlp.segment import split_sentences  # noqa: E402


def queue(data: Path, count: int) -> list[ClaimText]:
    sentences: list[str] = []
    with open(data / "bbc_news" / "bbc_news.jsonl", encoding="utf-8") as handle:
        for line in handle:
            text = json.loads(line)["text"]
            sentences.extend(text[s.start : s.end] for s in split_sentences(text))
    return [ClaimText(id=n + 1, text=sentences[n % len(sentences)]) for n in range(count)]


def entries(data: Path, size: int) -> list[LibraryEntry]:
    raw = library(data)[:size]
    return [
        LibraryEntry(id=n + 1, claim=e["claim"], title=e.get("title", ""), summary=e.get("summary", ""), rating=e.get("rating", ""))
        for n, e in enumerate(raw)
    ]


def one_way(way: str, args: argparse.Namespace) -> None:
    library_entries, claims = entries(args.data, args.library), queue(args.data, args.claims)
    new_ids = {entry.id for entry in library_entries[-args.new :]}
    start_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    wall, cpu = time.perf_counter(), time.process_time()
    if way == "before":
        rows = match_claims_against(library_entries, claims, top=5, candidates=20, min_score=0.01)
    else:
        rows = match_new_entries(library_entries, iter(claims), new_ids, top=5, candidates=20, min_score=0.01)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    touched = {row.claim_id for row in rows if row.factcheck_id in new_ids}
    stored = sorted((r.claim_id, r.factcheck_id, r.rank, round(r.score, 6)) for r in rows if r.claim_id in touched)
    print(json.dumps({
        "way": way, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "rss_before_call_mb": start_rss // 1024, "claims_reranked": len({row.claim_id for row in rows}), "stored": stored,
    }))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=121_000)
    parser.add_argument("--new", type=int, default=2)
    parser.add_argument("--library", type=int, default=30_000)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--way", choices=["before", "after"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not (args.data / "liar").is_dir() or not (args.data / "bbc_news").is_dir() or not (args.data / "claim_matching").is_dir():
        print(f"match-new bench: {args.data} lacks liar/, claim_matching/ or bbc_news/ (it lives outside the repo); skipped.")
        return 0
    if args.way:
        one_way(args.way, args)
        return 0
    results = {}
    for way in ("before", "after"):
        command = [sys.executable, __file__, "--way", way, "--claims", str(args.claims), "--new", str(args.new)]
        command += ["--library", str(args.library), "--data", str(args.data)]
        results[way] = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    print(f"library {args.library:,} entries ({args.new} new); queue {args.claims:,} claims")
    for way, label in (("before", "whole queue re-ranked"), ("after", "claims with a new candidate")):
        r = results[way]
        print(f"{label:28s}: {r['wall_s']:6.2f} s wall, {r['cpu_s']:6.2f} s CPU, peak RSS {r['peak_rss_mb']:,} MB "
              f"(inputs loaded: {r['rss_before_call_mb']:,} MB); claims with matches: {r['claims_reranked']:,}")
    same = results["before"]["stored"] == results["after"]["stored"]
    print(f"rows stored (claims whose top list now holds a new entry): {len(results['after']['stored'])}, identical both ways: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
