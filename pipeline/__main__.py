"""Try the extraction without a database.

    python -m pipeline extract FILE...   one JSON object per claim
    python -m pipeline score             one sentence per line on stdin ->
                                         "<score>\\t<1|0>" per line, in order
    python -m pipeline match LIBRARY.jsonl [--top K] [--date YYYY-MM-DD] [--min-score P]
                                         one claim per line on stdin -> per line, in
                                         order, "id\\tscore\\tid\\tscore..." (K pairs)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from pipeline.local import claim_json, extract, read_articles
from pipeline.nlp.checkworthiness import load_scorer

SCORE_BATCH = 2048
MATCH_BATCH = 1024
MATCH_HELP = """Match claims against a library of fact-checks (pipeline/nlp/matching.py, the code the
Spark job runs). LIBRARY.jsonl: one JSON object a line with "id" and "claim", optionally
"title", "summary", "rating", "url", "date", "publisher". Reads one claim per line on stdin
and prints one line per claim, in the same order: "id<TAB>score<TAB>id<TAB>score...", the
best K matches first (fewer when fewer library entries share a word with the claim, or
when --min-score leaves out those whose probability is below it). An
empty input line, or one with no word found in the library, prints an empty line. Scores
are match probabilities from the re-ranker, printed with 6 decimals."""


def command_extract(paths: Sequence[str]) -> int:
    missing = [path for path in paths if not os.path.exists(path)]
    if missing:
        print(f"No such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    _, _, claims = extract(read_articles(paths), load_scorer())
    for item in claims:
        print(claim_json(item))
    return 0


def command_score() -> int:
    scorer = load_scorer()
    batch: list[str] = []

    def flush() -> None:
        for score in scorer.score(batch):
            print(f"{score:.6f}\t{int(score >= scorer.threshold)}")
        batch.clear()

    for line in sys.stdin:
        batch.append(line.rstrip("\n"))
        if len(batch) >= SCORE_BATCH:
            flush()
    if batch:
        flush()
    return 0


def command_match(library_path: str, top: int, when: str | None, candidates: int | None = None, min_score: float = 0.0) -> int:
    from pipeline.nlp.matching import LibraryError, MatchConfig, MatchIndex, parse_date, read_library

    if top < 1:
        print("--top must be at least 1", file=sys.stderr)
        return 2
    if candidates is not None and candidates < 1:
        print("--candidates must be at least 1", file=sys.stderr)
        return 2
    claim_date = parse_date(when) if when else None
    if when and claim_date is None:
        print(f"--date: not a date: {when!r} (use YYYY-MM-DD)", file=sys.stderr)
        return 2
    try:
        with open(library_path, encoding="utf-8") as handle:
            entries = read_library(handle)
    except OSError as error:
        print(f"{library_path}: {error.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"{library_path}: not UTF-8 text", file=sys.stderr)
        return 2
    except LibraryError as error:
        print(f"{library_path}: {error}", file=sys.stderr)
        return 2
    index = MatchIndex.build(entries, config=MatchConfig(candidates=candidates) if candidates else None)
    batch: list[str] = []

    def flush() -> None:
        dates = [claim_date] * len(batch) if claim_date else None
        for matches in index.match(batch, top, dates, min_score):
            print("\t".join(f"{entry}\t{score:.6f}" for entry, score in matches))
        batch.clear()

    for line in sys.stdin:
        batch.append(line.rstrip("\n"))
        if len(batch) >= MATCH_BATCH:
            flush()
    if batch:
        flush()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    extract_parser = commands.add_parser("extract", help="print the claims found in article files (.txt, .md, .jsonl)")
    extract_parser.add_argument("files", nargs="+")
    commands.add_parser("score", help="score sentences read from stdin, one per line")
    match_parser = commands.add_parser(
        "match",
        help="match claims read from stdin against a library of fact-checks",
        description=MATCH_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    match_parser.add_argument("library", metavar="LIBRARY.jsonl")
    match_parser.add_argument("--top", type=int, default=5, metavar="K", help="matches per claim (default 5)")
    match_parser.add_argument(
        "--date", default=None, metavar="YYYY-MM-DD", help="when the claims were made (e.g. the articles' date): nearby fact-checks rank higher"
    )
    match_parser.add_argument(
        "--candidates", type=int, default=None, metavar="N",
        help="BM25 candidates re-ranked per claim (default 50; the job and the web app use FACTCHECK_MATCH_CANDIDATES, 20)",
    )
    match_parser.add_argument(
        "--min-score", type=float, default=0.0, metavar="P",
        help="leave out matches whose probability is below P (default 0; the job and the web app store FACTCHECK_MATCH_MIN_SCORE, 0.01, or above)",
    )
    args = parser.parse_args(argv)
    if args.command == "extract":
        return command_extract(args.files)
    if args.command == "match":
        return command_match(args.library, args.top, args.date, args.candidates, args.min_score)
    return command_score()


if __name__ == "__main__":
    sys.exit(main())
