"""Training and evaluating the contestability model (pipeline/nlp/contestability.py).

Examples are claims the pipeline finds, each with a grade of docs/ranking_guidelines.md
(0 not a claim, 1 routine, 2 checkable but minor, 3 a desk would take it) and a group (its
article): folds never split a group. Two sources:

* our graded BBC claims, training/bbc_news_rank_labels.tsv (60 whole articles) and
  training/bbc_news_rank_pool_labels.tsv (the claims that competed for the top of the queue),
  whose text is read from ../shared/data/bbc_news/ and checked against a SHA-1 prefix;
* the desk's triage decisions (factcheck.claims.models.TriageLabel), passed in by the refit.

Both are UK news of 2004-5 (and whatever the desk reads), so a model fitted on them alone
read every claim of the US seed stories as unfamiliar (contestability 0.02-0.30). Two
out-of-genre sources teach it what a desk takes and leaves in US political speech, beside
the graded claims and never in the figures (`out_of_genre_examples`):

* claims a desk really did take: PolitiFact's checked statements (LIAR's train split,
  ../shared/data/liar/), a fixed sample of LIAR_SAMPLE, as grade 3;
* what it would not: the sentences of US debates labelled not check-worthy that the
  pipeline still finds as claims (CheckThat! 2024 train, ../shared/data/checkthat2024_task1_en/),
  as grade 0: stance, narrative and procedure in debaters' words (a few of them checkable).

Weighted against the graded claims (OUT_OF_GENRE_TAKE_WEIGHT, OUT_OF_GENRE_OTHER_WEIGHT) so
they steer the model without outvoting the guideline; chosen out of fold (docs/model.md).

A fifth of the graded articles (by a hash of the article id, `is_held_out`) is held out: no
choice was made on it, and its figures are read once, for docs/model.md.

The fit: a logistic regression (balanced classes within the graded claims) over the
standardised cues, scaled by CUE_SCALE, beside the sentence's word 1-2-grams (min_df 2), one
regularisation strength for both. Chosen out of fold on the articles outside the held-out fifth (docs/model.md has the
table): the n-grams carry most of the signal; the cues steer the little data there is.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.nlp.contestability import FEATURE_NAMES, ClaimView, ContestabilityModel, features
from pipeline.nlp.ngrams import ngrams
from pipeline.rank_audit import together

TRAINING_DIR = Path(__file__).resolve().parent.parent / "training"
GRADED_FILES = ("bbc_news_rank_labels.tsv", "bbc_news_rank_pool_labels.tsv")
# Two more labellers' blind grades of the graded claims that compete for the top (every claim
# the first labeller graded 2 or 3, and the queue's top 200): where they graded a claim, its
# grade is the three labellers' together (pipeline.rank_audit.together), as the audit judges.
REGRADES_FILE = "bbc_news_rank_regrades.tsv"
TAKE = 3  # the grade a desk would take: the positive class
FOLDS = 5
MIN_DF = 2
TERM_C = 3.0
CUE_SCALE = math.sqrt(0.04 / TERM_C)
TOP = 30
LIAR_FILE = Path("liar") / "train.tsv"
DEBATES_FILE = Path("checkthat2024_task1_en") / "CT24_checkworthy_english_train.tsv"
LIAR_SAMPLE = 3000
# The out-of-genre claims' total weight, as a share of the graded claims' weight of the same
# class: LIAR's statements together weigh a tenth of the graded claims a desk would take; the
# debates' not check-worthy claims as much as the graded claims it would not take.
OUT_OF_GENRE_TAKE_WEIGHT = 0.1
OUT_OF_GENRE_OTHER_WEIGHT = 1.0


# What extraction scores contestability with while examples are made: training reads none of
# it (it is no feature), and must not need the shipped artifact, which a change to the cues
# leaves unreadable until it is refit.
NO_RANKER = ContestabilityModel(
    weights=(0.0,) * len(FEATURE_NAMES), means=(0.0,) * len(FEATURE_NAMES), scales=(1.0,) * len(FEATURE_NAMES),
    idf={}, term_weights={}, intercept=0.0, metadata={},
)


@dataclass(frozen=True)
class Graded:
    article_id: str
    start: int
    end: int
    grade: int  # what trains and counts: the labellers' together where regraded, else the first's
    digest: str
    first: int | None = None  # the first labeller's grade, where others regraded the claim


@dataclass(frozen=True)
class Example:
    view: ClaimView
    grade: int
    group: str  # folds keep a group whole: an article
    out_of_genre: bool = False  # trains, weighted (OUT_OF_GENRE_*), and never counts in a figure


def is_held_out(group: str) -> bool:
    return int(hashlib.sha1(group.encode()).hexdigest()[:8], 16) % 5 == 0


def sentence_digest(sentence: str) -> str:
    return hashlib.sha1(sentence.encode()).hexdigest()[:10]


def read_graded(paths: Iterable[Path] | None = None, regrades: Path | None = None) -> list[Graded]:
    """The graded claims of the labels files; a claim in the regrades file (default: the
    shipped one, with the default files) takes the grade of its three labellers together."""
    rows = []
    for path in paths or [TRAINING_DIR / name for name in GRADED_FILES]:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
        for number, line in enumerate(lines[1:], start=2):
            fields = line.split("\t")
            if len(fields) != 5 or fields[3] not in {"0", "1", "2", "3"}:
                raise ValueError(f"{path}: row {number} is not article_id, start, end, grade 0-3, sha1")
            rows.append(Graded(fields[0], int(fields[1]), int(fields[2]), int(fields[3]), fields[4]))
    if regrades is None and paths is None:
        regrades = TRAINING_DIR / REGRADES_FILE
    others = read_regrades(regrades) if regrades is not None and regrades.exists() else {}
    return [
        replace(row, grade=together(row.grade, *others[key]), first=row.grade) if (key := (row.article_id, row.digest)) in others else row
        for row in rows
    ]


def read_regrades(path: Path) -> dict[tuple[str, str], tuple[int, int]]:
    """(article id, sentence digest) -> the two other labellers' grades (REGRADES_FILE)."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    regrades = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 8 or not {fields[4], fields[5]} <= {"0", "1", "2", "3"}:
            raise ValueError(f"{path}: row {number} is not article_id, start, end, sha1, second 0-3, third 0-3, two reasons")
        regrades[(fields[0], fields[3])] = (int(fields[4]), int(fields[5]))
    return regrades


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
    _, claims = extract_articles([ArticleText(text, content_hash(text)) for text in texts], scorer, NO_RANKER)
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


def out_of_genre_examples(data_root: Path, scorer: Any) -> tuple[list[Example], list[str]]:
    """(examples, the files not found) of the out-of-genre sources under the shared data
    root: LIAR's statements as claims a desk took, the debates' not check-worthy sentences the
    pipeline finds as claims as claims it would not take. Each text is an article of its own;
    a text the pipeline does not find as a claim is left out."""
    texts: list[tuple[str, int, str]] = []  # (text, grade, group)
    missing = []
    liar_path, debates_path = data_root / LIAR_FILE, data_root / DEBATES_FILE
    if liar_path.exists():
        with open(liar_path, encoding="utf-8", newline="") as handle:
            statements = [(row[0], row[2]) for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE) if len(row) > 2]
        random.Random(0).shuffle(statements)
        texts += [(statement, TAKE, f"liar:{statement_id}") for statement_id, statement in statements[:LIAR_SAMPLE]]
    else:
        missing.append(str(liar_path))
    if debates_path.exists():
        with open(debates_path, encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
        texts += [(row[1], 0, f"debate:{row[0]}") for row in rows if len(row) == 3 and row[2] == "No"]
    else:
        missing.append(str(debates_path))
    return _single_sentence_examples(texts, scorer), missing


def _single_sentence_examples(texts: Sequence[tuple[str, int, str]], scorer: Any) -> list[Example]:
    from pipeline.extract import ArticleText, extract_articles
    from pipeline.text import content_hash, normalise_text

    normalised = [normalise_text(text) for text, _, _ in texts]
    _, claims = extract_articles([ArticleText(text, content_hash(text)) for text in normalised], scorer, NO_RANKER)
    examples: dict[int, Example] = {}
    for index, claim in claims:
        if index not in examples:
            view = ClaimView(claim.sentence, claim.score, claim.claim_type, tuple(claim.claim_types), claim.attribution, dict(claim.signals))
            examples[index] = Example(view, texts[index][1], texts[index][2], out_of_genre=True)
    return [examples[index] for index in sorted(examples)]


def sample_weights(examples: Sequence[Example]) -> np.ndarray:
    """Balanced classes within the graded claims; each out-of-genre class together weighs
    its OUT_OF_GENRE_* share of the graded claims of its class."""
    take = np.array([example.grade >= TAKE for example in examples])
    foreign = np.array([example.out_of_genre for example in examples])
    graded = ~foreign
    graded_take, graded_other = int((take & graded).sum()), int((~take & graded).sum())
    if not graded_take or not graded_other:
        raise ValueError("A fit needs graded claims a desk would take and graded claims it would not")
    weights = np.where(take, graded.sum() / (2 * graded_take), graded.sum() / (2 * graded_other))
    # Balanced, each class of graded claims weighs graded.sum() / 2 in all.
    for in_class, share in ((take, OUT_OF_GENRE_TAKE_WEIGHT), (~take, OUT_OF_GENRE_OTHER_WEIGHT)):
        rows = foreign & in_class
        if rows.any():
            weights[rows] = share * (graded.sum() / 2) / rows.sum()
    return weights


def fit(examples: Sequence[Example]) -> ContestabilityModel:
    from scipy.sparse import csr_matrix, hstack
    from sklearn.linear_model import LogisticRegression

    labels = np.array([example.grade >= TAKE for example in examples])
    weights = sample_weights(examples)
    cues = np.array([features(example.view) for example in examples])
    # Standardised as the graded claims (the genre the queue reads) spread.
    graded = np.array([not example.out_of_genre for example in examples])
    means = cues[graded].mean(axis=0)
    scales = cues[graded].std(axis=0)
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
    model = LogisticRegression(C=TERM_C, max_iter=5000).fit(matrix, labels, sample_weight=weights)
    coefficients = model.coef_[0]
    return ContestabilityModel(
        weights=tuple(float(value) * CUE_SCALE for value in coefficients[: len(FEATURE_NAMES)]),
        means=tuple(float(value) for value in means),
        scales=tuple(float(value) for value in scales),
        idf=idf,
        term_weights={term: float(value) for term, value in zip(vocabulary, coefficients[len(FEATURE_NAMES) :], strict=True)},
        intercept=float(model.intercept_[0]),
        metadata={
            "examples": int(graded.sum()),
            "take": int((labels & graded).sum()),
            "out_of_genre": {"take": int((labels & ~graded).sum()), "other": int((~labels & ~graded).sum())},
            "vocabulary": len(vocabulary),
        },
    )


def _term_matrix(examples: Sequence[Example], idf: dict[str, float], columns: dict[str, int]) -> Any:
    from scipy.sparse import csr_matrix

    from pipeline.nlp.ngrams import tfidf

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


def out_of_fold(examples: Sequence[Example], extra: Sequence[Example] = (), *, folds: int = FOLDS, seed: int = 0) -> np.ndarray:
    """Each example's probability from the model fitted on the other folds (and `extra`, the
    out-of-genre examples, in every fit)."""
    fold = fold_of([example.group for example in examples], folds=folds, seed=seed)
    probabilities = np.zeros(len(examples))
    for k in range(folds):
        model = fit([*(example for example, f in zip(examples, fold, strict=True) if f != k), *extra])
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


def shared_data_root(bbc_path: Path) -> Path:
    """The shared data folder that holds bbc_news/ and the out-of-genre sources beside it."""
    return bbc_path.parent.parent


def out_of_genre_or_none(data_root: Path, scorer: Any, log: Any = print) -> list[Example]:
    """The out-of-genre examples, saying which sources are absent (the fit goes on without them)."""
    extra, absent = out_of_genre_examples(data_root, scorer)
    for path in absent:
        log(f"{path} not found: fitting without it (see ../shared/data/README.md)")
    take = sum(example.grade >= TAKE for example in extra)
    log(f"out of genre: {take} LIAR statements (a desk took them), {len(extra) - take} debate sentences (not check-worthy)")
    return extra


def train_shipped(bbc_path: Path, scorer: Any, out_dir: Path, log: Any = print) -> dict[str, Any]:
    """Fit on our graded BBC claims outside the held-out fifth and the out-of-genre claims,
    write the artifact, and return its out-of-fold figures on the graded claims (the held-out
    fifth is read by evaluate_ranking)."""
    if not bbc_path.exists():
        raise FileNotFoundError(f"BBC News not found at {bbc_path} (../shared/data/bbc_news/, see its README)")
    examples, missing = corpus_examples(bbc_path, scorer)
    development = [example for example in examples if not is_held_out(example.group)]
    log(f"{len(examples)} graded claims ({missing} graded sentences not found as claims); {len(development)} outside the held-out fifth")
    extra = out_of_genre_or_none(shared_data_root(bbc_path), scorer, log)
    probabilities = out_of_fold(development, extra)
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
    model = fit([*development, *extra])
    trained_on = [*GRADED_FILES, *(str(path) for path in (LIAR_FILE, DEBATES_FILE) if (shared_data_root(bbc_path) / path).exists())]
    metadata = {**model.metadata, "trained_on": trained_on, "held_out": "articles with is_held_out(id)", "out_of_fold": figures}
    replace(model, metadata=metadata).save(out_dir)
    return figures


def out_of_fold_by_article(
    examples: Sequence[Example],
    claims: Sequence[tuple[str, ClaimView]],
    extra: Sequence[Example] = (),
    *,
    folds: int = FOLDS,
    seed: int = 0,
) -> list[float]:
    """The probability of every claim of a corpus ((article id, view) pairs) as the queue's
    figures must see it: a claim of an article some examples came from is scored by the
    model fitted without that article's fold; any other claim by the model fitted on all the
    examples (the shipped one, when `examples` and `extra` are its training claims)."""
    fold_of_article = dict(zip((e.group for e in examples), fold_of([e.group for e in examples], folds=folds, seed=seed), strict=True))
    models = [fit([*(e for e in examples if fold_of_article[e.group] != k), *extra]) for k in range(folds)]
    everything = fit([*examples, *extra])
    return [
        (models[fold_of_article[article_id]] if article_id in fold_of_article else everything).probability(view)
        for article_id, view in claims
    ]
