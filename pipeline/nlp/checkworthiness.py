"""The check-worthiness model at scoring time: artifact loading and the Scorer.

The artifact (pipeline/models/checkworthiness/: metadata.json, model.npz, tokenizer.json)
is written by `python manage.py train_checkworthiness` (pipeline/training.py). It is read
through importlib.resources so it also loads from the zip that spark-submit ships to
executors; the Spark job broadcasts the artifact's bytes and each Python worker builds
its Scorer once (see `scorer_from_artifact`).

Model: a logistic-regression head (pipeline/training.py `train_head`) over three blocks
of features of one sentence:
- the max- and mean-pooled features of a one-layer WordPiece CNN distilled from a
  fine-tuned all-MiniLM-L6-v2 (pipeline/student.py). Its kernel-3 convolution is folded
  at load time into three tables T_k = E @ W_k (vocabulary x width), so a piece costs three
  row gathers and two adds: numpy and the `tokenizers` library only, no transformer pass;
- TF-IDF word 1-2-grams (the vocabulary and idf weights are in the artifact);
- the cues of pipeline.nlp.claim_features (boilerplate, questions, opinion, reported
  speech, numbers, claim types, subject area).
The CNN was trained on debates only; the head is trained on debates and labelled news, so
it is what carries the model to news copy.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from pipeline.nlp.quantities import Quantity

STUDENT_FILES = ("metadata.json", "model.npz", "tokenizer.json")
ARTIFACT_FILES = STUDENT_FILES + ("head.npz", "head_vocabulary.json")
ARTIFACT_PACKAGE_PATH = ("models", "checkworthiness")
# The per-token-type cache is cleared past this many types, so memory stays bounded.
MAX_CACHED_TYPES = 300_000
# Sentences per dense block in decision_function (block memory: GROUP x length x width floats).
GROUP = 64
# Control characters that str.split() treats as whitespace but the BERT normalizer deletes
# (so "a\x1cb" is one token there): deleted first, so per-token pieces equal the sentence's.
_DELETED_CONTROLS = str.maketrans("", "", "\x0b\x0c\x1c\x1d\x1e\x1f\x85")


@dataclass(frozen=True)
class Artifact:
    """The model's files as bytes: small (about 2 MB), picklable, broadcastable."""

    files: dict[str, bytes]

    @property
    def digest(self) -> str:
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(self.files[name])
        return digest.hexdigest()

    @property
    def metadata(self) -> dict[str, Any]:
        return json.loads(self.files["metadata.json"])


def default_artifact_dir() -> Path:
    return Path(__file__).resolve().parent.parent.joinpath(*ARTIFACT_PACKAGE_PATH)


def read_artifact(directory: str | Path | None = None, *, student_only: bool = False) -> Artifact:
    """The model's files; `student_only`: the CNN's alone (training the head needs no head)."""
    names = STUDENT_FILES if student_only else ARTIFACT_FILES
    if directory is not None:
        base = Path(directory)
        return Artifact({name: (base / name).read_bytes() for name in names})
    packaged = resources.files("pipeline").joinpath(*ARTIFACT_PACKAGE_PATH)
    missing = [name for name in names if not packaged.joinpath(name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"check-worthiness model missing ({', '.join(missing)}) in pipeline/models/checkworthiness; "
            "run `python manage.py train_checkworthiness`"
        )
    return Artifact({name: packaged.joinpath(name).read_bytes() for name in names})


class StudentCNN:
    """The distilled CNN: pooled features per sentence, vectorised per batch.

    WordPiece ids are cached per whitespace token type (WordPiece never crosses
    whitespace), so a batch costs dictionary look-ups and a few numpy gathers.
    Not thread-safe: one per process.
    """

    def __init__(self, artifact: Artifact) -> None:
        from tokenizers import Tokenizer

        self.metadata = artifact.metadata
        arrays = np.load(io.BytesIO(artifact.files["model.npz"]), allow_pickle=False)
        embedding = arrays["embedding_int8"].astype(np.float32) * arrays["embedding_scale"].astype(np.float32)[:, None]
        kernel = arrays["conv_weight"].astype(np.float32)  # width, dim, 3
        if kernel.shape[2] != 3 or kernel.shape[1] != embedding.shape[1]:
            raise ValueError(f"model.npz: conv_weight {kernel.shape} does not fit embedding {embedding.shape}")
        bias = arrays["conv_bias"].astype(np.float32)
        width = len(bias)
        # Row `vocabulary` (self._filler) fills positions past a sentence's end: it adds nothing as
        # a neighbour and -1e30 at the centre, so ReLU gives 0 there and pooling ignores it.
        # The centre table carries the convolution's bias; [PAD] (row 0) is a zero vector.
        # One BLAS thread: a multi-threaded product may sum in another order, and the CLI and
        # the Spark workers (OPENBLAS_NUM_THREADS=1) must build bit-identical tables.
        from threadpoolctl import threadpool_limits

        self._filler = embedding.shape[0]
        self._tables = []
        for k in range(3):
            table = np.zeros((self._filler + 1, width), np.float32)
            with threadpool_limits(limits=1):
                table[: self._filler] = embedding @ kernel[:, :, k].T
            if k == 1:
                table[: self._filler] += bias
                table[self._filler] = -1e30
            self._tables.append(table)
        out_weight = arrays["out_weight"].astype(np.float64)
        self._w_max, self._w_mean = out_weight[:width], out_weight[width:]
        self._out_bias = float(arrays["out_bias"])
        self._max_pieces = int(self.metadata["student"]["max_pieces"])
        self._tokenizer = Tokenizer.from_str(artifact.files["tokenizer.json"].decode("utf-8"))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._reset_cache()

    def _reset_cache(self) -> None:
        self._type_id: dict[str, int] = {}
        self._type_start = np.zeros(0, np.int64)
        self._type_length = np.zeros(0, np.int64)
        self._pieces = np.zeros(0, np.int64)

    def _add_types(self, types: list[str]) -> None:
        encodings = self._tokenizer.encode_batch(types, add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), np.int64, len(encodings))
        pieces = np.fromiter((i for e in encodings for i in e.ids), np.int64, int(lengths.sum()))
        self._type_start = np.concatenate([self._type_start, len(self._pieces) + np.r_[0, np.cumsum(lengths)[:-1]]])
        self._type_length = np.concatenate([self._type_length, lengths])
        self._pieces = np.concatenate([self._pieces, pieces])
        base = len(self._type_id)
        for offset, token in enumerate(types):
            self._type_id[token] = base + offset

    def pooled(self, texts: list[str]) -> np.ndarray:
        """(sentences, 2 x width): each sentence's max- then mean-pooled convolution
        features; zeros for a sentence without pieces."""
        count = len(texts)
        width = len(self._w_max)
        features = np.zeros((count, 2 * width), np.float64)
        if count == 0:
            return features
        tokens = [text.translate(_DELETED_CONTROLS).split() for text in texts]
        flat = list(chain.from_iterable(tokens))
        found = list(map(self._type_id.get, flat))
        if None in found:
            new_types = {token for token, type_id in zip(flat, found, strict=True) if type_id is None}
            if len(self._type_id) + len(new_types) > MAX_CACHED_TYPES:
                self._reset_cache()
                new_types = set(flat)
            self._add_types(sorted(new_types))
            found = list(map(self._type_id.__getitem__, flat))
        token_counts = np.fromiter(map(len, tokens), np.int64, count)
        types = np.array(found, np.int64)
        # Each sentence's WordPiece ids: the concatenated pieces of its tokens, cut at max_pieces.
        type_lengths = self._type_length[types]
        total = int(type_lengths.sum())
        if total == 0:
            return features
        first_piece = np.r_[0, np.cumsum(type_lengths)[:-1]]
        pieces = self._pieces[np.repeat(self._type_start[types] - first_piece, type_lengths) + np.arange(total)]
        sentence_lengths = np.bincount(np.repeat(np.arange(count), token_counts), weights=type_lengths, minlength=count).astype(np.int64)
        position = np.arange(total) - np.repeat(np.r_[0, np.cumsum(sentence_lengths)[:-1]], sentence_lengths)
        keep = position < self._max_pieces
        pieces = pieces[keep]
        lengths = np.minimum(sentence_lengths, self._max_pieces)
        first = np.r_[0, np.cumsum(lengths)[:-1]]
        # Sentences of similar length together, as dense (group, length, width) blocks; the
        # kernel-3 convolution sees [PAD] (a zero vector, table row 0) beyond both ends.
        order = np.argsort(lengths, kind="stable")
        for begin in range(0, count, GROUP):
            rows = order[begin : begin + GROUP]
            longest = int(lengths[rows[-1]])
            if longest == 0:
                continue
            offsets = np.arange(longest)
            valid = offsets < lengths[rows, None]
            framed = np.zeros((len(rows), longest + 2), np.int64)
            framed[:, 1:-1] = np.where(valid, pieces[np.minimum(first[rows, None] + offsets, len(pieces) - 1)], self._filler)
            framed[:, -1] = self._filler
            conv = self._tables[0][framed[:, :-2]]
            conv += self._tables[1][framed[:, 1:-1]]
            conv += self._tables[2][framed[:, 2:]]
            np.maximum(conv, 0.0, out=conv)
            features[rows, :width] = conv.max(1)
            features[rows, width:] = conv.sum(1) / np.maximum(lengths[rows], 1)[:, None]
        return features

    def student_decision(self, texts: list[str]) -> np.ndarray:
        """The distilled CNN's own logit (its training target; not what `score` returns)."""
        features = self.pooled(texts)
        # Row-wise sums, not a BLAS product: a sentence's score must not depend on which
        # sentences share its batch (the CLI and the Spark job batch differently).
        return self._out_bias + (features[:, : len(self._w_max)] * self._w_max).sum(1) + (features[:, len(self._w_max) :] * self._w_mean).sum(1)



class Scorer:
    """P(check-worthy) for sentences: the head over the CNN's features. One per process."""

    def __init__(self, artifact: Artifact) -> None:
        self.metadata = artifact.metadata
        self.threshold = float(self.metadata["threshold"])
        self.cnn = StudentCNN(artifact)
        self._head = Head(artifact)
        if self._head.cnn_weight.shape[0] != 2 * len(self.cnn._w_max):
            raise ValueError(f"head.npz: {self._head.cnn_weight.shape[0]} CNN weights for {2 * len(self.cnn._w_max)} pooled features")

    def decision_function(self, texts: list[str], quantities: Sequence[Sequence[Quantity]] | None = None) -> np.ndarray:
        """The head's logit: what `score` turns into a probability. `quantities`: each
        sentence's parsed quantities when the caller has them (saves parsing twice)."""
        return self._head.decision(texts, self.cnn.pooled(texts), quantities)

    def score(self, texts: list[str], quantities: Sequence[Sequence[Quantity]] | None = None) -> np.ndarray:
        """P(check-worthy); 0 for empty or blank strings."""
        texts = list(texts)
        bad = next((i for i, text in enumerate(texts) if not isinstance(text, str)), None)
        if bad is not None:
            raise TypeError(f"Scorer.score expects strings, got {type(texts[bad]).__name__} at position {bad}")
        probabilities = 1.0 / (1.0 + np.exp(-self.decision_function(texts, quantities)))
        if texts:
            probabilities[np.fromiter((not text or text.isspace() for text in texts), bool, len(texts))] = 0.0
        return probabilities


class Head:
    """Logistic regression over [TF-IDF 1-2-grams | CNN pooled features | sentence cues]."""

    def __init__(self, artifact: Artifact) -> None:
        from pipeline.nlp.claim_features import FEATURE_NAMES

        arrays = np.load(io.BytesIO(artifact.files["head.npz"]), allow_pickle=False)
        vocabulary = json.loads(artifact.files["head_vocabulary.json"])
        self.metadata = artifact.metadata.get("head", {})
        if list(self.metadata.get("feature_names", [])) != list(FEATURE_NAMES):
            raise ValueError("head.npz was trained on other sentence features; retrain (python manage.py train_checkworthiness --head-only)")
        # TfidfVectorizer(**TFIDF_OPTIONS) fitted the vocabulary and idf; pipeline.nlp.ngrams
        # transforms a sentence as it does, without importing scikit-learn into every worker.
        self._idf = dict(zip(vocabulary, arrays["idf"].astype(np.float64).tolist(), strict=True))
        self._term_weight = dict(zip(vocabulary, arrays["tfidf_weight"].astype(np.float64).tolist(), strict=True))
        self.cnn_weight = arrays["cnn_weight"].astype(np.float64)
        self.feature_weight = arrays["feature_weight"].astype(np.float64)
        self.bias = float(arrays["bias"])

    def decision(self, texts: list[str], pooled: np.ndarray, quantities: Sequence[Sequence[Quantity]] | None = None) -> np.ndarray:
        from pipeline.nlp.claim_features import feature_matrix
        from pipeline.nlp.ngrams import weighted_sum

        if not texts:
            return np.zeros(0)
        # A sparse matrix-vector product sums each row on its own, and the dense parts are
        # row-wise sums: a sentence's score does not depend on its batch.
        tfidf = np.fromiter((weighted_sum(text, self._idf, self._term_weight) for text in texts), np.float64, len(texts))
        dense = (pooled * self.cnn_weight).sum(1) + (feature_matrix(texts, quantities) * self.feature_weight).sum(1)
        return self.bias + tfidf + dense


# The head's n-gram features; training and scoring share them.
TFIDF_OPTIONS: dict[str, Any] = {"ngram_range": (1, 2), "sublinear_tf": True, "lowercase": True, "dtype": np.float64}


_SCORERS: dict[str, Scorer] = {}


def scorer_from_artifact(artifact: Artifact) -> Scorer:
    """One Scorer per process and artifact (executors reuse Python workers)."""
    key = artifact.digest
    if key not in _SCORERS:
        _SCORERS[key] = Scorer(artifact)
    return _SCORERS[key]


def load_scorer(directory: str | Path | None = None) -> Scorer:
    return scorer_from_artifact(read_artifact(directory))
