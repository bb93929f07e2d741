"""The check-worthiness model at scoring time: artifact loading and the Scorer.

The artifact (pipeline/models/checkworthiness/: metadata.json, model.npz, tokenizer.json)
is written by `python manage.py train_checkworthiness` (pipeline/training.py). It is read
through importlib.resources so it also loads from the zip that spark-submit ships to
executors; the Spark job broadcasts the artifact's bytes and each Python worker builds
its Scorer once (see `scorer_from_artifact`).

Model: one logistic regression over TF-IDF word 1-2 grams, TF-IDF char_wb 2-5 grams and
static WordPiece vectors distilled from all-MiniLM-L6-v2 (the Model2Vec idea), with the
static block folded into one weight per WordPiece, so scoring needs numpy, scipy,
scikit-learn's analyzer and the `tokenizers` library — no torch, no transformer pass.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

ARTIFACT_FILES = ("metadata.json", "model.npz", "tokenizer.json")
ARTIFACT_PACKAGE_PATH = ("models", "checkworthiness")
# The per-token-type cache is cleared past this many types, so memory stays bounded.
MAX_CACHED_TYPES = 300_000


@dataclass(frozen=True)
class Artifact:
    """The model's files as bytes: small (about 2 MB), picklable, broadcastable."""

    files: dict[str, bytes]

    @property
    def digest(self) -> str:
        digest = hashlib.sha256()
        for name in ARTIFACT_FILES:
            digest.update(self.files[name])
        return digest.hexdigest()

    @property
    def metadata(self) -> dict[str, Any]:
        return json.loads(self.files["metadata.json"])


def default_artifact_dir() -> Path:
    return Path(__file__).resolve().parent.parent.joinpath(*ARTIFACT_PACKAGE_PATH)


def read_artifact(directory: str | Path | None = None) -> Artifact:
    if directory is not None:
        base = Path(directory)
        return Artifact({name: (base / name).read_bytes() for name in ARTIFACT_FILES})
    packaged = resources.files("pipeline").joinpath(*ARTIFACT_PACKAGE_PATH)
    missing = [name for name in ARTIFACT_FILES if not packaged.joinpath(name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"check-worthiness model missing ({', '.join(missing)}) in pipeline/models/checkworthiness; "
            "run `python manage.py train_checkworthiness`"
        )
    return Artifact({name: packaged.joinpath(name).read_bytes() for name in ARTIFACT_FILES})


def _char_wb_ngrams(token: str, min_n: int, max_n: int) -> list[str]:
    """Exactly scikit-learn's char_wb analyzer for one whitespace token (lower-cased)."""
    padded = " " + token + " "
    length = len(padded)
    grams = []
    for n in range(min_n, max_n + 1):
        offset = 0
        grams.append(padded[offset : offset + n])
        while offset + n < length:
            offset += 1
            grams.append(padded[offset : offset + n])
        if offset == 0:
            break
    return grams


def _tfidf_dot(counts: sp.csr_matrix, idf: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """Row-wise <l2norm((1 + log tf) * idf), coef> without building the tf-idf matrix."""
    rows = counts.shape[0]
    if counts.nnz == 0:
        return np.zeros(rows)
    weights = (np.log(counts.data) + 1.0) * idf[counts.indices]
    row_of = np.repeat(np.arange(rows), np.diff(counts.indptr))
    norm = np.sqrt(np.bincount(row_of, weights=weights * weights, minlength=rows))
    dot = np.bincount(row_of, weights=weights * coef[counts.indices], minlength=rows)
    norm[norm == 0] = 1.0
    return dot / norm


class Scorer:
    """P(check-worthy) for sentences, vectorised per batch.

    Char n-grams and WordPiece weights are cached per whitespace token type, so a batch
    costs one sparse product. Not thread-safe: one Scorer per process.
    """

    def __init__(self, artifact: Artifact) -> None:
        from sklearn.feature_extraction.text import CountVectorizer
        from tokenizers import Tokenizer

        self.metadata = artifact.metadata
        arrays = np.load(io.BytesIO(artifact.files["model.npz"]), allow_pickle=False)
        word = self.metadata["features"]["word"]
        self._word_counts = CountVectorizer(
            vocabulary={term: i for i, term in enumerate(arrays["word_vocab"].tolist())},
            ngram_range=tuple(word["ngram_range"]),
            lowercase=True,
            dtype=np.float64,
        )
        self._word_idf, self._word_coef = arrays["word_idf"], arrays["word_coef"]
        char = self.metadata["features"]["char"]
        self._char_min, self._char_max = char["ngram_range"]
        self._char_vocab = {gram: i for i, gram in enumerate(arrays["char_vocab"].tolist())}
        self._char_idf, self._char_coef = arrays["char_idf"], arrays["char_coef"]
        self._piece_weight = arrays["piece_u"].astype(np.float64)
        self._static_offset = float(arrays["static_c0"])
        self._intercept = float(arrays["intercept"])
        self.threshold = float(self.metadata["threshold"])
        self._tokenizer = Tokenizer.from_str(artifact.files["tokenizer.json"].decode("utf-8"))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._reset_cache()

    def _reset_cache(self) -> None:
        self._type_id: dict[str, int] = {}
        self._type_chars = sp.csr_matrix((0, len(self._char_vocab)), dtype=np.float64)
        self._type_static_sum = np.zeros(0)
        self._type_pieces = np.zeros(0)

    def _add_types(self, types: list[str]) -> None:
        base = len(self._type_id)
        indptr, indices, data = [0], [], []
        for token in types:
            grams = Counter(self._char_vocab.get(g, -1) for g in _char_wb_ngrams(token, self._char_min, self._char_max))
            grams.pop(-1, None)
            for index in sorted(grams):
                indices.append(index)
                data.append(grams[index])
            indptr.append(len(indices))
        rows = sp.csr_matrix(
            (np.asarray(data, np.float64), np.asarray(indices, np.int64), np.asarray(indptr)),
            shape=(len(types), len(self._char_vocab)),
        )
        self._type_chars = sp.vstack([self._type_chars, rows], format="csr")
        encodings = self._tokenizer.encode_batch(types, add_special_tokens=False)
        sums = np.fromiter((self._piece_weight[e.ids].sum() for e in encodings), np.float64, len(encodings))
        counts = np.fromiter((len(e.ids) for e in encodings), np.float64, len(encodings))
        self._type_static_sum = np.concatenate([self._type_static_sum, sums])
        self._type_pieces = np.concatenate([self._type_pieces, counts])
        for offset, token in enumerate(types):
            self._type_id[token] = base + offset

    def decision_function(self, texts: list[str]) -> np.ndarray:
        count = len(texts)
        if count == 0:
            return np.zeros(0)
        decision = _tfidf_dot(self._word_counts.transform(texts), self._word_idf, self._word_coef)
        tokens = [text.lower().split() for text in texts]
        new_types = {token for sentence in tokens for token in sentence if token not in self._type_id}
        if new_types and len(self._type_id) + len(new_types) > MAX_CACHED_TYPES:
            self._reset_cache()
            new_types = {token for sentence in tokens for token in sentence}
        if new_types:
            self._add_types(sorted(new_types))
        lengths = np.fromiter((len(sentence) for sentence in tokens), np.int64, count)
        ids = np.fromiter((self._type_id[t] for sentence in tokens for t in sentence), np.int64, int(lengths.sum()))
        type_counts = sp.csr_matrix((np.ones(len(ids)), ids, np.r_[0, np.cumsum(lengths)]), shape=(count, len(self._type_id)))
        type_counts.sum_duplicates()
        decision += _tfidf_dot(type_counts @ self._type_chars, self._char_idf, self._char_coef)
        static_sum = type_counts @ self._type_static_sum
        pieces = type_counts @ self._type_pieces
        decision += np.where(pieces > 0, static_sum / np.maximum(pieces, 1.0), 0.0) + self._static_offset
        return decision + self._intercept

    def score(self, texts: list[str]) -> np.ndarray:
        """P(check-worthy); 0 for empty or blank strings (the intercept alone sits near the threshold)."""
        texts = list(texts)
        probabilities = 1.0 / (1.0 + np.exp(-self.decision_function(texts)))
        if texts:
            probabilities[np.fromiter((not text or text.isspace() for text in texts), bool, len(texts))] = 0.0
        return probabilities


_SCORERS: dict[str, Scorer] = {}


def scorer_from_artifact(artifact: Artifact) -> Scorer:
    """One Scorer per process and artifact (executors reuse Python workers)."""
    key = artifact.digest
    if key not in _SCORERS:
        _SCORERS[key] = Scorer(artifact)
    return _SCORERS[key]


def load_scorer(directory: str | Path | None = None) -> Scorer:
    return scorer_from_artifact(read_artifact(directory))
