"""Try the extraction without a database.

    python -m pipeline extract FILE...   one JSON object per claim
    python -m pipeline score             one sentence per line on stdin ->
                                         "<score>\\t<1|0>" per line, in order
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from pipeline.local import claim_json, extract, read_articles
from pipeline.nlp.checkworthiness import load_scorer

SCORE_BATCH = 2048


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    extract_parser = commands.add_parser("extract", help="print the claims found in article files (.txt, .md, .jsonl)")
    extract_parser.add_argument("files", nargs="+")
    commands.add_parser("score", help="score sentences read from stdin, one per line")
    args = parser.parse_args(argv)
    if args.command == "extract":
        return command_extract(args.files)
    return command_score()


if __name__ == "__main__":
    sys.exit(main())
