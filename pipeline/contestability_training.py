"""Training and evaluating the contestability model (pipeline/nlp/contestability.py).

Examples are claims the pipeline finds, each with a grade of docs/ranking_guidelines.md
(0 not a claim, 1 routine, 2 checkable but minor, 3 a desk would take it) and a group (its
article): folds never split a group. Two sources:

* our graded BBC claims, training/bbc_news_rank_labels.tsv (60 whole articles) and
  training/bbc_news_rank_pool_labels.tsv (the claims that competed for the top of the queue),
  whose text is read from ../shared/data/bbc_news/ and checked against a SHA-1 prefix;
* the desk's triage decisions (factcheck.claims.models.TriageLabel), passed in by the refit.

A fifth of the graded articles (by a hash of the article id, `is_held_out`) is held out: no
choice was made on it, and its figures are read once, for docs/model.md.

The fit: a logistic regression (balanced classes) over the standardised cues, scaled by
CUE_SCALE, beside the sentence's word 1-2-grams (min_df 2), one regularisation strength for
both. Chosen out of fold on the articles outside the held-out fifth (docs/model.md has the
table): the n-grams carry most of the signal; the cues steer the little data there is.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.nlp.contestability import FEATURE_NAMES, ClaimView, ContestabilityModel, features, ngrams

TRAINING_DIR = Path(__file__).resolve().parent.parent / "training"
GRADED_FILES = ("bbc_news_rank_labels.tsv", "bbc_news_rank_pool_labels.tsv")
TAKE = 3  # the grade a desk would take: the positive class
FOLDS = 5
MIN_DF = 2
TERM_C = 3.0
CUE_SCALE = math.sqrt(0.01 / TERM_C)
TOP = 30


@dataclass(frozen=True)
class Graded:
    article_id: str
    start: int
    end: int
    grade: int
    digest: str


@dataclass(frozen=True)
class Example:
    view: ClaimView
    grade: int
    group: str  # folds keep a group whole: an article


def is_held_out(group: str) -> bool:
    return int(hashlib.sha1(group.encode()).hexdigest()[:8], 16) % 5 == 0


def sentence_digest(sentence: str) -> str:
    return hashlib.sha1(sentence.encode()).hexdigest()[:10]


def read_graded(paths: Iterable[Path] | None = None) -> list[Graded]:
    rows = []
    for path in paths or [TRAINING_DIR / name for name in GRADED_FILES]:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
        for number, line in enumerate(lines[1:], start=2):
            fields = line.split("\t")
            if len(fields) != 5 or fields[3] not in {"0", "1", "2", "3"}:
                raise ValueError(f"{path}: row {number} is not article_id, start, end, grade 0-3, sha1")
            rows.append(Graded(fields[0], int(fields[1]), int(fields[2]), int(fields[3]), fields[4]))
    return rows


def read_corpus(bbc_path: Path) -> dict[str, str]:
    with open(bbc_path, encoding="utf-8") as handle:
        return {record["id"]: record["text"] for record in map(json.loads, handle)}


def corpus_examples(bbc_path: Path, scorer: Any, graded: Sequence[Graded] | None = None) -> tuple[list[Example], int]:
    """(examples, graded sentences the pipeline does not find as claims any more) from our
    graded BBC claims: the graded articles go through the extraction, and each claim found
    whose sentence was graded becomes an example with the pipeline's view of it."""
    from pipeline.extract import ArticleText, ClaimRecord, extract_articles
    from pipeline.text import content_hash, normalise_text

    graded = list(graded if graded is not None else read_graded())
    corpus = read_corpus(bbc_path)
    for row in graded:
        text = corpus.get(row.article_id, "")[row.start : row.end]
        if sentence_digest(text) != row.digest:
            raise ValueError(f"{row.article_id} {row.start}-{row.end} no longer matches the corpus text")
    article_ids = sorted({row.article_id for row in graded})
    texts = [normalise_text(corpus[article_id]) for article_id in article_ids]
    _, claims = extract_articles([ArticleText(text, content_hash(text)) for text in texts], scorer)
    found: dict[tuple[str, str], ClaimRecord] = {}
    for index, claim in claims:
        found.setdefault((article_ids[index], sentence_digest(claim.sentence)), claim)
    examples, missing, seen = [], 0, set()
    for row in graded:
        key = (row.article_id, row.digest)
        record = found.get(key)
        if record is None:
            missing += 1
            continue
        if key in seen:
            continue
        seen.add(key)
        view = ClaimView(record.sentence, record.score, record.claim_type, tuple(record.claim_types), record.attribution, dict(record.signals))
        examples.append(Example(view, row.grade, row.article_id))
    return examples, missing


def fit(examples: Sequence[Example]) -> ContestabilityModel:
    from scipy.sparse import csr_matrix, hstack
    from sklearn.linear_model import LogisticRegression

    labels = np.array([example.grade >= TAKE for example in examples])
    if labels.all() or not labels.any():
        raise ValueError("A fit needs claims a desk would take and claims it would not")
    cues = np.array([features(example.view) for example in examples])
    means = cues.mean(axis=0)
    scales = cues.std(axis=0)
    scales[scales == 0] = 1.0
    counts = [ngrams(example.view.sentence) for example in examples]
    document_frequency: dict[str, int] = {}
    for count in counts:
        for term in count:
            document_frequency[term] = document_frequency.get(term, 0) + 1
    vocabulary = sorted(term for term, df in document_frequency.items() if df >= MIN_DF)
    # scikit-learn's smooth idf: ln((1 + n) / (1 + df)) + 1.
    idf = {term: math.log((1 + len(examples)) / (1 + document_frequency[term])) + 1.0 for term in vocabulary}
    terms = _term_matrix(examples, idf, {term: column for column, term in enumerate(vocabulary)})
    matrix = hstack([csr_matrix((cues - means) / scales * CUE_SCALE), terms]).tocsr()
    model = LogisticRegression(C=TERM_C, class_weight="balanced", max_iter=5000).fit(matrix, labels)
    coefficients = model.coef_[0]
    return ContestabilityModel(
        weights=tuple(float(value) * CUE_SCALE for value in coefficients[: len(FEATURE_NAMES)]),
        means=tuple(float(value) for value in means),
        scales=tuple(float(value) for value in scales),
        idf=idf,
        term_weights={term: float(value) for term, value in zip(vocabulary, coefficients[len(FEATURE_NAMES) :], strict=True)},
        intercept=float(model.intercept_[0]),
        metadata={"examples": len(examples), "take": int(labels.sum()), "vocabulary": len(vocabulary)},
    )


def _term_matrix(examples: Sequence[Example], idf: dict[str, float], columns: dict[str, int]) -> Any:
    from scipy.sparse import csr_matrix

    from pipeline.nlp.contestability import tfidf

    rows, cols, values = [], [], []
    for row, example in enumerate(examples):
        for term, value in tfidf(example.view.sentence, idf).items():
            rows.append(row)
            cols.append(columns[term])
            values.append(value)
    return csr_matrix((values, (rows, cols)), shape=(len(examples), len(columns)))


def fold_of(groups: Sequence[str], *, folds: int = FOLDS, seed: int = 0) -> np.ndarray:
    """Each example's fold: whole groups, shuffled by the seed, dealt round-robin."""
    distinct = sorted(set(groups))
    np.random.RandomState(seed).shuffle(distinct)
    fold = {group: index % folds for index, group in enumerate(distinct)}
    return np.array([fold[group] for group in groups])


def out_of_fold(examples: Sequence[Example], *, folds: int = FOLDS, seed: int = 0) -> np.ndarray:
    """Each example's probability from the model fitted on the other folds."""
    fold = fold_of([example.group for example in examples], folds=folds, seed=seed)
    probabilities = np.zeros(len(examples))
    for k in range(folds):
        model = fit([example for example, f in zip(examples, fold, strict=True) if f != k])
        for index in np.flatnonzero(fold == k):
            probabilities[index] = model.probability(examples[index].view)
    return probabilities


def ndcg_at(ranked_grades: Sequence[int], all_grades: Sequence[int], k: int = TOP) -> float:
    """NDCG@k with gains 2^grade - 1: the grades in the ranking's order against the best
    order of every grade there is."""
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    gain = sum((2**grade - 1) * discount for grade, discount in zip(ranked_grades[:k], discounts, strict=False))
    ideal = sum((2**grade - 1) * discount for grade, discount in zip(sorted(all_grades, reverse=True)[:k], discounts, strict=False))
    return float(gain / ideal) if ideal else 0.0


def average_precision(labels: Sequence[bool], scores: Sequence[float]) -> float:
    from sklearn.metrics import average_precision_score

    return float(average_precision_score(list(labels), list(scores))) if any(labels) else 0.0


def default_bbc_path(checkworthiness_data_dir: Path) -> Path:
    return checkworthiness_data_dir.parent / "bbc_news" / "bbc_news.jsonl"


def train_shipped(bbc_path: Path, scorer: Any, out_dir: Path, log: Any = print) -> dict[str, Any]:
    """Fit on our graded BBC claims outside the held-out fifth, write the artifact, and return
    its out-of-fold figures on those claims (the held-out fifth is read by evaluate_ranking)."""
    if not bbc_path.exists():
        raise FileNotFoundError(f"BBC News not found at {bbc_path} (../shared/data/bbc_news/, see its README)")
    examples, missing = corpus_examples(bbc_path, scorer)
    development = [example for example in examples if not is_held_out(example.group)]
    log(f"{len(examples)} graded claims ({missing} graded sentences not found as claims); {len(development)} outside the held-out fifth")
    probabilities = out_of_fold(development)
    labels = [example.grade >= TAKE for example in development]
    figures = {
        "claims": len(development),
        "take": int(sum(labels)),
        "average_precision": round(average_precision(labels, probabilities.tolist()), 4),
        "ndcg_at_30_model_alone": round(
            ndcg_at([development[i].grade for i in np.argsort(-probabilities)], [e.grade for e in development]), 4
        ),
    }
    log(f"out of fold: {figures}")
    model = fit(development)
    metadata = {**model.metadata, "trained_on": list(GRADED_FILES), "held_out": "articles with is_held_out(id)", "out_of_fold": figures}
    replace(model, metadata=metadata).save(out_dir)
    return figures


def out_of_fold_by_article(
    examples: Sequence[Example], claims: Sequence[tuple[str, ClaimView]], *, folds: int = FOLDS, seed: int = 0
) -> list[float]:
    """The probability of every claim of a corpus ((article id, view) pairs) as the queue's
    figures must see it: a claim of an article some examples came from is scored by the
    model fitted without that article's fold; any other claim by the model fitted on all the
    examples (the shipped one, when `examples` are its training claims)."""
    fold_of_article = dict(zip((e.group for e in examples), fold_of([e.group for e in examples], folds=folds, seed=seed), strict=True))
    models = [fit([e for e in examples if fold_of_article[e.group] != k]) for k in range(folds)]
    everything = fit(examples)
    return [
        (models[fold_of_article[article_id]] if article_id in fold_of_article else everything).probability(view)
        for article_id, view in claims
    ]
