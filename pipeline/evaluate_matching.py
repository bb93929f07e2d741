"""MAP@5 of the shipped claim matcher on CLEF CheckThat! 2021 task 2A English.

    python -m pipeline.evaluate_matching [--no-cv]

Prints the train figure (5-fold cross-validation over the train tweets: the re-rankers
refitted on four folds, the fifth ranked) and the dev figure of the committed artifact
(trained on all train tweets; dev qrels are read only here), each with the tweets' dates
(from their trailers) and without. MATCHING_DATA_DIR overrides ../shared/data/claim_matching.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from pipeline.nlp.matching import MatchIndex, mean_average_precision, read_artifact, tweet_date
from pipeline.train_matching import cross_validate, read_clef


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.evaluate_matching", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-cv", action="store_true", help="skip the train cross-validation")
    args = parser.parse_args(argv)
    data = read_clef(with_dev=True)
    started = time.perf_counter()
    index = MatchIndex.build(data.library, read_artifact())
    print(f"factchecks: {len(index):,} Snopes checks, index built in {time.perf_counter() - started:.1f} s")
    if not args.no_cv:
        shipped = index.rerankers
        dated, undated = cross_validate(index, data, dated=True), cross_validate(index, data, dated=False)
        index.rerankers = shipped
        print(f"train ({len(data.train)} tweets), 5-fold CV MAP@5: {dated:.4f} with dates, {undated:.4f} without")
    queries = sorted(data.dev)
    texts = [data.tweets[q] for q in queries]
    for label, dates in (("with dates", [tweet_date(t) for t in texts]), ("without", None)):
        results = index.match(texts, 5, dates)
        rankings = {q: [entry for entry, _ in result] for q, result in zip(queries, results, strict=True)}
        print(f"dev ({len(queries)} tweets) MAP@5 {label}: {mean_average_precision(rankings, data.dev):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
