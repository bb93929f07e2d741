"""Train and evaluate the matcher's verification stage on news (docs/matching.md, "Same claim,
not same topic").

    python -m pipeline.train_verification fit [--base-rate 0.01]   # writes verifier.json
    python -m pipeline.train_verification evaluate                  # the held-out figures

The news matching set (docs/matching_labels.md) is three kinds of claims against the
library a desk would hold (the 13,825 Snopes checks and 12,836 LIAR statements), each claim
with the re-rankers' best VERIFY_DEPTH candidates:

- the BBC News claims the pipeline extracts (pipeline.extract with the shipped
  check-worthiness model): never checked (a 2004-2005 British corpus against American checks
  of later years), except the pairs labelled same claim by hand in
  training/news_matching_labels.tsv (the 143 claims the matcher of 2026-11-25 badged);
- the CheckThat! 2021 tweets with their known earlier check (qrels);
- claims the team wrote (training/news_matching_written.tsv): paraphrases of library checks
  and same-topic impostors.

Split by whole claims: a BBC claim by its sentence's sha1 (the same sentence in two articles
stays on one side), a written claim by the check it is written against, tweets by the task's
own train/dev split. The held-out half is never read by `fit`. The verifier is a logistic
regression over VERIFY_FEATURES; its probability is shifted from the training set's share of
claims with an earlier check to the base rate a desk assumes (--base-rate, stored; a desk
overrides it with FACTCHECK_MATCH_BASE_RATE).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np

from pipeline.nlp.matching import (
    VERIFIER_FILE,
    VERIFY_DEPTH,
    MatchConfig,
    MatchIndex,
    mean_average_precision,
    read_artifact,
    tweet_date,
)
from pipeline.nlp.verification import VERIFY_FEATURES, Verifier
from pipeline.train_matching import read_clef

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
LABELS = ROOT / "training" / "news_matching_labels.tsv"
WRITTEN = ROOT / "training" / "news_matching_written.tsv"
ARTIFACT_DIR = ROOT / "pipeline" / "models" / "matching"
CANDIDATES = 20  # the job's FACTCHECK_MATCH_CANDIDATES
DEFAULT_BASE_RATE = 0.01
C = 1.0
BOOTSTRAP = 1000
# Hard negatives (pairs a reader labelled another claim about the same people or subject: the
# hand-labelled BBC pairs and the written impostors against their targets) weigh this many
# ordinary ones: there are a few hundred of them against ~40,000 easy pairs.
HARD_WEIGHT = 10.0
VERBATIM = 400  # library checks taken as claims quoting them, about half of them on the train side
# The badge threshold is chosen on the train half (claims in FOLDS folds, each scored by a
# verifier fitted on the others): the highest of THRESHOLDS that badges at least GOAL_REPEATS
# of the repeats and at most GOAL_NEVER of the never-checked BBC claims (issue 28's goal).
FOLDS = 5
THRESHOLDS = (0.5, 0.3, 0.2, 0.1, 0.07, 0.05, 0.04, 0.03, 0.02, 0.01)
GOAL_REPEATS = 0.80
GOAL_NEVER = 0.02


@dataclass
class Group:
    """Claims of one kind on one side of the split, with their gold entries (empty: none)."""

    texts: list[str] = field(default_factory=list)
    gold: list[set[str]] = field(default_factory=list)
    dates: list[date | None] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    # Entries a reader judged another claim about the same subject (hard negatives).
    hard: list[set[str]] = field(default_factory=list)

    def add(self, name: str, text: str, gold: set[str], day: date | None = None, hard: set[str] | None = None) -> None:
        self.names.append(name)
        self.texts.append(text)
        self.gold.append(gold)
        self.dates.append(day)
        self.hard.append(hard or set())


def held_out(key: str) -> bool:
    return int(hashlib.sha1(key.encode("utf-8")).hexdigest()[:8], 16) % 2 == 1


def news_library(data: Path) -> list[dict[str, str]]:
    entries: list[dict[str, str]] = []
    with open(data / "claim_matching" / "vclaims.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            entries.append({"id": row["vclaim_id"], "claim": row["vclaim"], "title": row["title"], "summary": row["subtitle"], "date": row["date"]})
    for split in ("train", "valid", "test"):
        with open(data / "liar" / f"{split}.tsv", encoding="utf-8") as handle:
            for line in handle:
                fields = line.rstrip("\n").split("\t")
                entries.append({"id": f"liar/{fields[0]}", "claim": fields[2], "rating": fields[1]})
    return entries


def bbc_claims(data: Path) -> list[tuple[str, int, int, str]]:
    """(article id, start, end, sentence) of every claim the pipeline extracts from the corpus."""
    from pipeline.extract import ArticleText, extract_articles
    from pipeline.nlp.checkworthiness import load_scorer

    scorer = load_scorer()
    with open(data / "bbc_news" / "bbc_news.jsonl", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    out: list[tuple[str, int, int, str]] = []
    for start in range(0, len(rows), 100):
        batch = rows[start : start + 100]
        articles = [ArticleText(row["text"], hashlib.sha256(row["text"].encode()).hexdigest()) for row in batch]
        _, claims = extract_articles(articles, scorer)
        out.extend((batch[a]["id"], claim.start, claim.end, claim.sentence) for a, claim in claims)
    return out


def read_tsv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


def build_groups(data: Path) -> tuple[dict[str, Group], dict[str, Group], dict[str, set[str]]]:
    """(train groups, held-out groups, impostor targets by claim name) by kind: tweets,
    written (paraphrases and impostors), bbc."""
    train = {kind: Group() for kind in ("tweets", "written", "bbc", "verbatim")}
    test = {kind: Group() for kind in ("tweets", "written", "bbc")}
    clef = read_clef(data / "claim_matching", with_dev=True)
    for query in sorted(clef.train):
        train["tweets"].add(f"tweet/{query}", clef.tweets[query], clef.train[query], tweet_date(clef.tweets[query]))
    for query in sorted(clef.dev):
        test["tweets"].add(f"tweet/{query}", clef.tweets[query], clef.dev[query], tweet_date(clef.tweets[query]))
    impostors: dict[str, set[str]] = {}
    for row in read_tsv(WRITTEN):
        side = test if held_out(row["target"]) else train
        gold = {row["target"]} if row["label"] == "same_claim" else set()
        if row["label"] != "same_claim":
            impostors[f"written/{row['id']}"] = {row["target"]}
        side["written"].add(f"written/{row['id']}", row["text"], gold, hard=set() if gold else {row["target"]})
    # Checks quoted word for word (train half only, never judged): no tweet or paraphrase is as
    # close to its check as the check itself, and without them the verifier learnt that the
    # closest pairs are the impostors (the cosines' weights then sank a verbatim repeat).
    library = news_library(data)
    for entry in library[:: max(1, len(library) // VERBATIM)]:
        if not held_out(entry["id"]):
            train["verbatim"].add(f"verbatim/{entry['id']}", entry["claim"], {entry["id"]})
    same: dict[str, set[str]] = {}
    other: dict[str, set[str]] = {}
    for row in read_tsv(LABELS):
        (same if row["label"] == "same_claim" else other).setdefault(row["sha1"], set()).add(row["candidate"])
    seen: set[str] = set()
    for article, start, end, sentence in bbc_claims(data):
        sha = hashlib.sha1(sentence.encode("utf-8")).hexdigest()[:10]
        if sha in seen:
            continue  # the corpus repeats articles: one claim, one row
        seen.add(sha)
        side = test if held_out(sha) else train
        side["bbc"].add(f"bbc/{article}:{start}:{end}", sentence, same.get(sha, set()), hard=other.get(sha, set()))
    return train, test, impostors


@dataclass
class Pairs:
    claim: np.ndarray  # index of the claim within all claims handed in
    entry: list[str]
    features: np.ndarray
    labels: np.ndarray
    hard: np.ndarray  # a hard negative (HARD_WEIGHT)


def pairs_of(index: MatchIndex, group: Group, offset: int) -> Pairs:
    texts = group.texts
    q_rows, d_rows, matrix = index.features(texts, group.dates if any(d is not None for d in group.dates) else None, CANDIDATES)
    keep, verify = index.verification_features(texts, q_rows, d_rows, matrix, VERIFY_DEPTH)
    entries = [index.ids[d] for d in d_rows[keep]]
    labels = np.array([entry in group.gold[q] for q, entry in zip(q_rows[keep], entries, strict=True)], np.float64)
    hard = np.array([entry in group.hard[q] for q, entry in zip(q_rows[keep], entries, strict=True)], bool)
    return Pairs(q_rows[keep] + offset, entries, verify, labels, hard)


def stack(parts: Sequence[Pairs]) -> Pairs:
    return Pairs(
        np.concatenate([p.claim for p in parts]),
        [e for p in parts for e in p.entry],
        np.vstack([p.features for p in parts]),
        np.concatenate([p.labels for p in parts]),
        np.concatenate([p.hard for p in parts]),
    )


def fit_verifier(pairs: Pairs, training_base_rate: float, base_rate: float) -> Verifier:
    from sklearn.linear_model import LogisticRegression

    mean = pairs.features.mean(axis=0)
    scale = pairs.features.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=C, max_iter=2000)
    model.fit((pairs.features - mean) / scale, pairs.labels, sample_weight=np.where(pairs.hard, HARD_WEIGHT, 1.0))
    pair_model = Verifier(
        VERIFY_FEATURES,
        model.coef_[0].astype(np.float64),
        float(model.intercept_[0]),
        mean,
        scale,
        training_base_rate,
        base_rate,
        lower=pairs.features.min(axis=0),
        upper=pairs.features.max(axis=0),
    )
    # Calibrated on each claim's best pair: the badge is a claim's, and a claim whose best pair
    # is wrong has no earlier check as far as the desk is concerned.
    logits = pair_model.logit(pairs.features)
    best_logit, best_right = [], []
    for start, stop in _claim_runs(pairs.claim):
        best = start + int(np.argmax(logits[start:stop]))
        best_logit.append(logits[best])
        best_right.append(pairs.labels[best])
    platt = LogisticRegression(C=1e6, max_iter=2000)
    platt.fit(np.asarray(best_logit)[:, None], np.asarray(best_right))
    return replace(pair_model, slope=float(platt.coef_[0][0]), offset=float(platt.intercept_[0]))


def _claim_runs(claims: np.ndarray) -> list[tuple[int, int]]:
    edges = np.flatnonzero(np.diff(claims)) + 1
    return list(zip(np.r_[0, edges].tolist(), np.r_[edges, len(claims)].tolist(), strict=True))


def claim_share(groups: dict[str, Group]) -> float:
    claims = sum(len(g.texts) for g in groups.values())
    repeats = sum(1 for g in groups.values() for gold in g.gold if gold)
    return repeats / claims


def prepared(data: Path) -> tuple[MatchIndex, dict[str, Group], dict[str, Group]]:
    artifact = read_artifact()
    files = {name: content for name, content in artifact.files.items() if name != VERIFIER_FILE}
    index = MatchIndex.build(news_library(data), type(artifact)(files), MatchConfig(candidates=CANDIDATES))
    train, test, _ = build_groups(data)
    return index, train, test


def _subset(pairs: Pairs, rows: np.ndarray) -> Pairs:
    return Pairs(pairs.claim[rows], [pairs.entry[i] for i in np.flatnonzero(rows)], pairs.features[rows], pairs.labels[rows], pairs.hard[rows])


def best_per_claim(probability: np.ndarray, pairs: Pairs, claims: int) -> tuple[np.ndarray, np.ndarray]:
    """Per claim: its best pair's probability (0 without pairs) and whether that pair is right."""
    best, right = np.zeros(claims), np.zeros(claims, bool)
    for start, stop in _claim_runs(pairs.claim):
        top = start + int(np.argmax(probability[start:stop]))
        best[pairs.claim[start]], right[pairs.claim[start]] = probability[top], pairs.labels[top] > 0
    return best, right


def choose_threshold(
    pairs: Pairs, names: Sequence[str], repeat: np.ndarray, never: np.ndarray, share: float, base_rate: float
) -> tuple[float, list[dict[str, float]]]:
    """The badge threshold, from the train half alone: each claim scored by a verifier fitted on
    the other folds (whole claims, by a hash of the name); the highest of THRESHOLDS meeting the
    goal (GOAL_REPEATS of the repeats, at most GOAL_NEVER of the never-checked), else the lowest."""
    fold = np.array([int(hashlib.sha1(name.encode("utf-8")).hexdigest()[:8], 16) % FOLDS for name in names])
    probability = np.zeros(len(pairs.labels))
    for k in range(FOLDS):
        train_rows = fold[pairs.claim] != k
        model = fit_verifier(_subset(pairs, train_rows), share, base_rate)
        probability[~train_rows] = model.probability(pairs.features[~train_rows])
    best, right = best_per_claim(probability, pairs, len(names))
    table = [
        {"threshold": t, "repeats_badged": float(((best >= t) & right)[repeat].mean()), "never_checked_badged": float((best >= t)[never].mean())}
        for t in THRESHOLDS
    ]
    meeting = [row["threshold"] for row in table if row["repeats_badged"] >= GOAL_REPEATS and row["never_checked_badged"] <= GOAL_NEVER]
    return (max(meeting) if meeting else min(THRESHOLDS)), table


def fit(data: Path, base_rate: float, out_dir: Path) -> Verifier:
    index, train, test = prepared(data)
    parts, offset = [], 0
    for group in train.values():
        parts.append(pairs_of(index, group, offset))
        offset += len(group.texts)
    pairs = stack(parts)
    share = claim_share(train)
    verifier = fit_verifier(pairs, share, base_rate)
    names = [name for group in train.values() for name in group.names]
    repeat = np.array([kind in ("tweets", "written") and bool(gold) for kind, group in train.items() for gold in group.gold])
    never = np.array([kind == "bbc" and not gold for kind, group in train.items() for gold in group.gold])
    threshold, table = choose_threshold(pairs, names, repeat, never, share, base_rate)
    for row in table:
        repeats, never_checked = 100 * row["repeats_badged"], 100 * row["never_checked_badged"]
        print(f"  train CV, badge at {row['threshold']}: repeats {repeats:.1f}%, never-checked BBC {never_checked:.2f}%")
    print(f"badge threshold chosen on the train half: {threshold}")
    (out_dir / VERIFIER_FILE).write_text(json.dumps(verifier.to_json(), indent=1) + "\n", encoding="utf-8")
    metadata_path = out_dir / "metadata.json"
    metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
    metadata["verifier"] = {
        "command": "python -m pipeline.train_verification fit",
        "training_date": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "train_claims": {kind: len(group.texts) for kind, group in train.items()},
        "train_pairs": int(len(pairs.labels)),
        "train_same_claim_pairs": int(pairs.labels.sum()),
        "training_base_rate": round(share, 6),
        "base_rate": base_rate,
        "candidates": CANDIDATES,
        "depth": VERIFY_DEPTH,
        "hard_negative_weight": HARD_WEIGHT,
        "hard_negative_pairs": int(pairs.hard.sum()),
        "badge_threshold": threshold,
        "badge_threshold_train_cv": table,
        "data": [
            "training/news_matching_labels.tsv, training/news_matching_written.tsv (train half, split by claim)",
            "../shared/data/bbc_news/bbc_news.jsonl (claims extracted by the pipeline; train half)",
            "../shared/data/claim_matching: vclaims.jsonl, train tweets and qrels-train.tsv",
            "../shared/data/liar (library entries)",
        ],
    }
    metadata_path.write_text(json.dumps(metadata, indent=1) + "\n", encoding="utf-8")
    same = int(pairs.labels.sum())
    print(f"verifier: {len(pairs.labels):,} pairs ({same} same claim) of {offset:,} claims; training base rate {share:.4f}, assumed {base_rate}")
    return verifier


def _interval(values: np.ndarray, rng: np.random.Generator) -> tuple[float, float, float]:
    if len(values) == 0:
        return float("nan"), float("nan"), float("nan")
    draws = rng.integers(0, len(values), size=(BOOTSTRAP, len(values)))
    means = values[draws].mean(axis=1)
    return float(values.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def badges(index: MatchIndex, group: Group, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Per claim: (badged: its best match scores at least `threshold`, and that match is right)."""
    results = index.match(group.texts, 5, group.dates if any(d is not None for d in group.dates) else None)
    badged = np.array([bool(r) and r[0][1] >= threshold for r in results])
    right = np.array([bool(r) and r[0][0] in gold for r, gold in zip(results, group.gold, strict=True)])
    return badged, right


def evaluate(data: Path, threshold: float) -> dict[str, object]:
    index, _, test = prepared(data)
    rng = np.random.default_rng(0)
    report: dict[str, object] = {}
    shipped = Verifier.from_json(json.loads((ARTIFACT_DIR / VERIFIER_FILE).read_text(encoding="utf-8")))
    for label, verifier in (("retrieval and re-rankers alone", None), ("with verification", shipped)):
        index.verifier = verifier
        repeats_badged: list[np.ndarray] = []
        for kind in ("tweets", "written"):
            group = test[kind]
            badged, right = badges(index, group, threshold)
            has_gold = np.array([bool(g) for g in group.gold])
            repeats_badged.append((badged & right)[has_gold])
        bbc = test["bbc"]
        badged, _ = badges(index, bbc, threshold)
        never = np.array([not g for g in bbc.gold])
        confident = np.array([bool(h) and not g for g, h in zip(bbc.gold, bbc.hard, strict=True)])
        written = test["written"]
        impostor = np.array([not g for g in written.gold])
        impostor_badged, _ = badges(index, written, threshold)
        repeats = np.concatenate(repeats_badged).astype(np.float64)
        queries = [name for name in test["tweets"].names]
        results = index.match(test["tweets"].texts, 5, test["tweets"].dates)
        rankings = {q: [e for e, _ in r] for q, r in zip(queries, results, strict=True)}
        relevant = dict(zip(queries, test["tweets"].gold, strict=True))
        undated = index.match(test["tweets"].texts, 5)
        rankings_undated = {q: [e for e, _ in r] for q, r in zip(queries, undated, strict=True)}
        figures = {
            "repeats badged (dev tweets + held-out paraphrases)": (_interval(repeats, rng), len(repeats)),
            "  of which dev tweets": (_interval(repeats_badged[0].astype(np.float64), rng), len(repeats_badged[0])),
            "  of which written paraphrases": (_interval(repeats_badged[1].astype(np.float64), rng), len(repeats_badged[1])),
            "never-checked BBC claims badged": (_interval(badged[never].astype(np.float64), rng), int(never.sum())),
            "written same-topic impostors badged": (_interval(impostor_badged[impostor].astype(np.float64), rng), int(impostor.sum())),
            "hand-labelled BBC claims, another claim (the old matcher's confident mistakes)": (
                _interval(badged[confident].astype(np.float64), rng),
                int(confident.sum()),
            ),
        }
        print(f"{label} (badge at {threshold}):")
        for name, ((mean, low, high), count) in figures.items():
            print(f"  {name}: {100 * mean:.1f}% [{100 * low:.1f}, {100 * high:.1f}] of {count}")
        dated_map = mean_average_precision(rankings, relevant)
        undated_map = mean_average_precision(rankings_undated, relevant)
        print(f"  MAP@5 dev tweets: {dated_map:.4f} with dates, {undated_map:.4f} without")
        report[label] = {"figures": figures, "map5_dev_dated": dated_map, "map5_dev_undated": undated_map}
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.train_verification", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("fit", "evaluate"))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--base-rate", type=float, default=DEFAULT_BASE_RATE)
    parser.add_argument("--threshold", type=float, help="badge threshold (default: the one `fit` chose on the train half)")
    parser.add_argument("--out", type=Path, default=ARTIFACT_DIR)
    args = parser.parse_args(argv)
    if not (args.data / "bbc_news").is_dir() or not (args.data / "liar").is_dir() or not (args.data / "claim_matching").is_dir():
        print(f"{args.data} lacks bbc_news/, liar/ or claim_matching/ (the shared data lives outside the repository)", file=sys.stderr)
        return 2
    if args.command == "fit":
        fit(args.data, args.base_rate, args.out)
    else:
        chosen = json.loads((ARTIFACT_DIR / "metadata.json").read_text(encoding="utf-8"))["verifier"]["badge_threshold"]
        evaluate(args.data, chosen if args.threshold is None else args.threshold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
