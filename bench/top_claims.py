"""The BBC corpus's claims in the order the queue shows them, for reading by hand.

    python bench/top_claims.py [--top 100] [--corpus ../shared/data/bbc_news/bbc_news.jsonl]

Runs the extraction the Spark job runs (pipeline.local.extract) on every article, as the UI
imports them (outlet "BBC News"), and orders the claims by the queue's priority: the
database's own claim_priority_parts with the stored weights and the shipped model's
contestability (the extraction's own signal), so the order is the queue's and not a copy of
its formula (needs DATABASE_URL). Every article is one outlet, so each cluster counts one;
a cluster is one row of the queue, at its lead's priority (the highest of its own). Prints one JSON object a line: the article id, the claim's offsets in
the article's normalised text, the first 10 hex digits of its SHA-1, priority, sentence,
quantities and speaker: what tests/pipeline/bbc_quantities_golden.tsv was written from.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

import psycopg

from pipeline.local import SourceArticle, extract
from pipeline.nlp.checkworthiness import load_scorer

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "data" / "bbc_news" / "bbc_news.jsonl"  # ../shared beside the checkout
PRIORITIES = """
SELECT (pp.parts ->> 'priority')::double precision
FROM unnest(%(scores)s::double precision[], %(types)s::text[], %(signals)s::jsonb[]) WITH ORDINALITY AS c(score, claim_type, signals, n)
CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.signals, 1) pp
ORDER BY c.n
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=100)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    if not args.corpus.exists():
        print(f"{args.corpus}: not found (the BBC corpus lives in ../shared/data)", file=sys.stderr)
        return 2
    records = [json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    articles = [SourceArticle(source=record["id"], text=record["text"], outlet="BBC News") for record in records]
    _, _, claims = extract(articles, load_scorer())
    with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
        priorities = [row[0] for row in conn.execute(PRIORITIES, {
            "scores": [item.claim.score for item in claims],
            "types": [item.claim.claim_type for item in claims],
            "signals": [json.dumps(item.claim.signals) for item in claims],
        })]
    # One row per cluster, at its lead (the queue's rule); ties keep article then offset
    # order, as the queue's id order does.
    lead: dict[str, int] = {}
    for index, item in enumerate(claims):
        key = item.claim.cluster_key or f"{index}"
        if key not in lead or priorities[index] > priorities[lead[key]]:
            lead[key] = index
    ranked = sorted(((priorities[i], i, claims[i]) for i in lead.values()), key=lambda row: (-row[0], row[1]))
    for priority, _, item in ranked[: args.top]:
        claim = item.claim
        print(json.dumps({
            "id": item.article.source, "start": claim.start, "end": claim.end,
            "sha1": hashlib.sha1(claim.sentence.encode()).hexdigest()[:10], "priority": round(priority, 4),
            "sentence": claim.sentence, "quantities": claim.quantities, "speaker": claim.speaker,
            "speaker_title": claim.speaker_title, "attribution": claim.attribution,
            "contestability": claim.signals.get("contestability"),
        }, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
