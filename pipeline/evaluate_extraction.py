"""How right the extraction is on the top 100 BBC claims, read by hand (issue 29, item 4).

    python -m pipeline.evaluate_extraction [--corpus ../shared/data/bbc_news/bbc_news.jsonl] [--golden FILE ...]

tests/pipeline/bbc_quantities_golden.tsv holds, for each claim the queue put in its top 100
(bench/top_claims.py) on 2026-11-26, and bbc_quantities_golden_contested.tsv for each claim of the
top 100 of 2026-11-27 (ranked with contestability) not already in the first, and
bbc_quantities_golden_regraded.tsv for the top 100 of 2026-12-02 (the model refit on three labellers'
grades) not in either, the article id, the sentence's offsets and SHA-1 prefix, its speaker and
its quantities, written by a person who read it. The BBC text is not in the repository: it is
read from the corpus. Each sentence is attributed in its article, as the pipeline does it
(pipeline.extract.article_sentences), and parsed with pipeline.nlp.quantities.

What is counted: one item per speaker and per expected quantity, plus one per quantity the parser
found that the reader did not (a spurious quantity is wrong too; a found quantity with the
expected value but some field wrong is one wrong item, not two). A quantity is right when its
value, unit, hedge, counted noun and, for a vague magnitude, its low and high all match.
Prints the share right, then every wrong item; with --without-noun, also the share when the
counted noun is not compared (for parsers that had none).

To score another tree's extraction with this golden file (an older commit, say), put that tree
first on the path and run this file: ``PYTHONPATH=/tmp/old python pipeline/evaluate_extraction.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.extract import article_sentences
from pipeline.nlp.quantities import parse_quantities
from pipeline.text import normalise_text

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "pipeline" / "bbc_quantities_golden.tsv"
# The top 100 of 2026-11-27, ranked with contestability: its claims not already in GOLDEN.
GOLDEN_CONTESTED = ROOT / "tests" / "pipeline" / "bbc_quantities_golden_contested.tsv"
# The top 100 of 2026-12-02, the ranking model refit on three labellers' grades: its claims in neither.
GOLDEN_REGRADED = ROOT / "tests" / "pipeline" / "bbc_quantities_golden_regraded.tsv"
GOLDEN_SETS = (GOLDEN, GOLDEN_CONTESTED, GOLDEN_REGRADED)
BBC = ROOT.parent / "shared" / "data" / "bbc_news" / "bbc_news.jsonl"
OUTLET = "BBC News"  # as the UI imports the corpus
_QUANTITY = re.compile(r'^(?P<value>\S+) (?P<unit>\S+) (?P<hedge>\S+)(?: "(?P<noun>[^"]*)")?(?: (?P<low>[\d.e+]+)-(?P<high>[\d.e+]+))?$')


@dataclass(frozen=True)
class Expected:
    value: float
    unit: str
    hedge: str
    noun: str = ""
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class GoldenClaim:
    article_id: str
    start: int
    end: int
    sha1: str
    speaker: str
    quantities: tuple[Expected, ...]


def parse_expected(text: str) -> tuple[Expected, ...]:
    found = []
    for part in filter(None, (p.strip() for p in text.split("; "))):
        m = _QUANTITY.match(part)
        if m is None:
            raise ValueError(f"golden file: not a quantity: {part!r}")
        found.append(Expected(
            value=float(m["value"]), unit="" if m["unit"] == "-" else m["unit"], hedge=m["hedge"], noun=m["noun"] or "",
            low=float(m["low"]) if m["low"] else None, high=float(m["high"]) if m["high"] else None,
        ))
    return tuple(found)


def read_golden(path: Path = GOLDEN) -> list[GoldenClaim]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    claims = []
    for line in lines[1:]:
        article_id, start, end, sha1, speaker, quantities = (line.split("\t") + [""])[:6]
        claims.append(GoldenClaim(article_id, int(start), int(end), sha1, speaker, parse_expected(quantities)))
    return claims


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-6)


def matches(expected: Expected, found: dict[str, object], *, noun: bool = True) -> bool:
    """Every field right; ``noun=False`` leaves out the counted noun (for parsers that had none)."""
    return (
        _close(expected.value, found["value"])  # type: ignore[arg-type]
        and expected.unit == found["unit"]
        and expected.hedge == found["hedge"]
        and (not noun or expected.noun == (found.get("noun") or ""))
        and _close(expected.low, found.get("low"))  # type: ignore[arg-type]
        and _close(expected.high, found.get("high"))  # type: ignore[arg-type]
    )


def describe(found: dict[str, object]) -> str:
    noun = f' "{found["noun"]}"' if found.get("noun") else ""
    bounds = f" {found['low']:g}-{found['high']:g}" if found.get("low") is not None else ""
    return f"{found['value']:g} {found['unit'] or '-'} {found['hedge']}{noun}{bounds}"


def score(claims: list[GoldenClaim], corpus: Path, *, noun: bool = True) -> tuple[int, int, list[str]]:
    """(right items, all items, one line per wrong item) of the extraction on the golden claims."""
    texts = {}
    with open(corpus, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            texts[record["id"]] = normalise_text(record["text"])
    sentences: dict[str, dict[tuple[int, int], object]] = {}
    right = total = 0
    wrong: list[str] = []
    for claim in claims:
        text = texts[claim.article_id]
        sentence = text[claim.start : claim.end]
        if hashlib.sha1(sentence.encode()).hexdigest()[: len(claim.sha1)] != claim.sha1:
            raise ValueError(f"{claim.article_id} {claim.start}-{claim.end} no longer matches the corpus text")
        if claim.article_id not in sentences:
            sentences[claim.article_id] = {(s.start, s.end): s for s in article_sentences(text, outlet=OUTLET)}
        record = sentences[claim.article_id].get((claim.start, claim.end))
        where = f"{claim.article_id} {claim.start}-{claim.end} {sentence[:70]!r}"
        speaker = getattr(record, "speaker", None)
        total += 1
        if speaker == claim.speaker:
            right += 1
        else:
            wrong.append(f"{where}: speaker {speaker!r}, expected {claim.speaker!r}")
        found = [q.as_dict() for q in parse_quantities(sentence)]
        unmatched = list(found)
        missed = []
        for expected in claim.quantities:
            total += 1
            hit = next((q for q in unmatched if matches(expected, q, noun=noun)), None)
            if hit is not None:
                unmatched.remove(hit)
                right += 1
            else:
                missed.append(expected)
        for expected in missed:
            # The same number read wrong is one wrong item: it is not also spurious.
            near = next((q for q in unmatched if _close(float(q["value"]), expected.value)), None)
            if near is not None:
                unmatched.remove(near)
            wrong.append(f"{where}: expected {expected}, found {describe(near) if near else 'nothing'}")
        for extra in unmatched:
            total += 1
            wrong.append(f"{where}: found {describe(extra)}, which the reader did not count")
    return right, total, wrong


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.evaluate_extraction", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=BBC)
    parser.add_argument("--golden", type=Path, action="append", help="a golden file (repeatable; default: both sets)")
    parser.add_argument("--without-noun", action="store_true", help="also print the share right without comparing counted nouns")
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        print(f"{args.corpus}: not found (the BBC corpus lives in ../shared/data)", file=sys.stderr)
        return 2
    every: list[str] = []
    sums = [0, 0, 0]
    for golden in args.golden or GOLDEN_SETS:
        claims = read_golden(golden)
        right, total, wrong = score(claims, args.corpus)
        print(f"{golden.name}: {len(claims)} claims: {right}/{total} quantities and speakers right ({right / total:.1%})")
        if args.without_noun:
            plain, plain_total, _ = score(claims, args.corpus, noun=False)
            print(f"  without the counted noun: {plain}/{plain_total} right ({plain / plain_total:.1%})")
        sums = [sums[0] + len(claims), sums[1] + right, sums[2] + total]
        every += wrong
    if len(args.golden or GOLDEN_SETS) > 1:
        print(f"together: {sums[0]} claims: {sums[1]}/{sums[2]} right ({sums[1] / sums[2]:.1%})")
    for line in every:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
