"""Claim matching: which earlier fact-checks a new claim repeats.

    index = MatchIndex.build(entries)              # once per library; picklable
    index.match(texts, top=5, dates=None)          # [[(entry id, score), ...], ...] per text

Two stages, both vectorised over a batch of texts:

1. Candidates: BM25 (k1 0.9, b 0.4) over each entry's claim + title + summary, on content
   words (stop words out, plurals stripped; URLs, tweet trailers, hashtags and @mentions
   normalised), the query's words counted once. A batch is one sparse product. Every idf
   (terms, character n-grams, WordPieces) adds the training library's document
   frequencies to the library's own (Background), so that scores mean the same for a desk's
   first few verdicts as for a library of thousands.
2. Re-ranking of each text's CANDIDATES best by a pairwise logistic regression over: the
   BM25 score (raw, relative to the text's best, rank), BM25 per field, the cosine of
   character 4-gram TF-IDF, the cosine of a static embedding distilled from
   all-MiniLM-L6-v2 (one vector per WordPiece, idf-weighted mean) and, where both dates
   are known, the days between the claim and the check. The score is the re-ranker's match
   probability (Platt-scaled; "dated" and "undated" models).

Fields, terms, features and parameters were chosen by 5-fold cross-validation on the
CheckThat! 2021 2A train tweets (`python -m pipeline.train_matching`, docs/matching.md).
Pure Python + numpy/scipy/scikit-learn/tokenizers: no Django, no database, no Spark. The
Spark job broadcasts a built index (it pickles) or builds one per executor from the rows.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from pipeline.nlp.verification import Verifier, features_matrix, reranker_logits

ARTIFACT_PACKAGE_PATH = ("models", "matching")
EMBEDDING_FILES = ("embedding.npz", "tokenizer.json")
BACKGROUND_FILE = "background.npz"
ARTIFACT_FILES = ("metadata.json", "reranker.json", BACKGROUND_FILE, *EMBEDDING_FILES)
# The verification stage (pipeline.nlp.verification); an artifact without it scores by the
# re-rankers alone (as while the verifier itself is being trained).
VERIFIER_FILE = "verifier.json"
# Pairs per text the verifier reads: the re-rankers' best, at least `top` of them.
VERIFY_DEPTH = 5
# The share of a desk's claims assumed to repeat an earlier check (the verifier's base rate);
# this environment variable overrides the one the artifact was calibrated for.
BASE_RATE_ENV = "FACTCHECK_MATCH_BASE_RATE"
FIELDS = ("claim", "title", "summary")
OPTIONAL_FIELDS = ("title", "summary", "rating", "url", "date", "publisher")
# Candidates per text handed from the BM25 stage to the re-ranker.
CANDIDATES = 50
# Control characters that str.split() treats as whitespace but the BERT normaliser deletes.
_DELETED_CONTROLS = str.maketrans("", "", "\x0b\x0c\x1c\x1d\x1e\x1f\x85")
# The per-token piece cache is cleared past this many tokens, so memory stays bounded.
MAX_CACHED_TOKENS = 300_000
# Queries per block of the sparse candidate search (bounds the dense block: BLOCK x library).
BLOCK = 256
# The character n-grams (char_vectoriser): 4-grams within words, hashed into 2**20 columns.
CHAR_N = 4
CHAR_FEATURES = 2**20
# The serialised index (MatchIndex.to_bytes): magic, sha256 of the rest, then the header and
# arrays. A new layout of the stored arrays, or a new meaning of one, takes a new FORMAT, so old
# entries miss (3: the claims verification reads, `verified_claim`).
INDEX_MAGIC = b"FCMATCHIDX"
INDEX_FORMAT = 3
# A claim of fewer words is no sentence: a cut-off import ("The", "ABC News'") or a rating in
# the claim's column ("false", "mixture"), 25 of the 13,825 Snopes checks of the CheckThat! set.
MIN_CLAIM_WORDS = 3

_STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between both but by
    can could did do does doing down during each few for from further had has have having he her here hers herself him himself
    his how i if in into is it its itself just let me more most my myself nor of off on once only or other our ours ourselves
    out over own same she should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with would you your yours
    yourself yourselves rt via amp""".split()
)
_URL = re.compile(r"(?:https?://|www\.)\S+|\bpic\.twitter\.com/\S+|\b[\w.-]+\.(?:com|org|net|ly|co|gov|uk)/\S*", re.IGNORECASE)
_TWEET_TRAILER = re.compile(r"\s+[—–-]\s+([^()\n]{0,80}?)\s*\(@\w+\)\s+\w+\s+\d{1,2},\s+\d{4}\s*$")
_TAG = re.compile(r"[#@](\w+)")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
_DIGIT_GROUP = re.compile(r"(?<=\d)[,.](?=\d{3}\b)")
_WORD = re.compile(r"[a-z0-9]+")
_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DAY_MONTH_YEAR = re.compile(r"(\d{1,2})\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})")
_MONTH_DAY_YEAR = re.compile(r"([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})")


class IndexFormatError(ValueError):
    """Serialised index bytes that are not a whole, intact index of the expected library."""


class LibraryError(ValueError):
    """A library line that cannot be used: says which line and what is wrong."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def normalise(text: str) -> str:
    """The form both sides are matched in: NFKC, no URLs or tweet trailers (the author's
    name is kept), hashtags and @mentions split into words, digit groups joined."""
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    text = _URL.sub(" ", text)
    text = _TWEET_TRAILER.sub(r" \1", text)
    text = _TAG.sub(lambda m: " " + _CAMEL.sub(" ", m.group(1)).replace("_", " ") + " ", text)
    return _DIGIT_GROUP.sub("", text)


@lru_cache(maxsize=MAX_CACHED_TOKENS)
def _stem(word: str) -> str:
    """A conservative plural stripper (Harman's S-stemmer): enough to join claim/claims."""
    if len(word) > 4 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("us", "ss", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """Content words of normalised text: lower case, stop words out, plurals stemmed."""
    return [_stem(w) for w in _WORD.findall(text.lower().replace("'s ", " ")) if w not in _STOP_WORDS]


def terms(text: str) -> list[str]:
    """The BM25 terms of raw text: its content words (bigrams did worse on train)."""
    return words(normalise(text))


def parse_date(value: str | None) -> date | None:
    """A calendar date from ISO 8601 (`2019-06-05`, a datetime's date part), `5 June 2019`
    or `June 5, 2019`; None for anything else."""
    if not value:
        return None
    text = value.strip()
    try:
        if match := _ISO_DATE.match(text):
            return date(int(match[1]), int(match[2]), int(match[3]))
        if match := _DAY_MONTH_YEAR.fullmatch(text):
            day, month, year = match[1], match[2], match[3]
        elif match := _MONTH_DAY_YEAR.fullmatch(text):
            month, day, year = match[1], match[2], match[3]
        else:
            return None
        number = _MONTHS.get(month[:3].lower())
        return date(int(year), number, int(day)) if number else None
    except ValueError:
        return None


def tweet_date(text: str) -> date | None:
    """The date in a pasted tweet's trailer (`— Name (@handle) June 4, 2019`), if any."""
    match = _TWEET_TRAILER.search(unicodedata.normalize("NFKC", text))
    return parse_date(match[0].rsplit(")", 1)[1]) if match else None


@dataclass(frozen=True)
class Artifact:
    """The trained files as bytes (a few MB): picklable, so Spark can broadcast them."""

    files: dict[str, bytes]

    @property
    def metadata(self) -> dict[str, Any]:
        return json.loads(self.files["metadata.json"])


def default_artifact_dir() -> Path:
    return Path(str(resources.files("pipeline").joinpath(*ARTIFACT_PACKAGE_PATH)))


def model_store_root() -> Path:
    """Where refitted model versions live: FACTCHECK_MODEL_STORE, else .var/models in the
    checkout (the web app's settings.FACTCHECK_MODEL_STORE reads the same variable with the
    same default)."""
    value = os.environ.get("FACTCHECK_MODEL_STORE", "").strip()
    return Path(value) if value else Path(__file__).resolve().parents[2] / ".var" / "models"


def read_artifact(directory: str | Path | None = None, *, embedding_only: bool = False) -> Artifact:
    """The artifact's files (through importlib.resources by default, so it also loads from
    the zip spark-submit ships); `embedding_only` for training, before re-rankers exist."""
    names = EMBEDDING_FILES if embedding_only else ARTIFACT_FILES
    if directory is None:
        root = resources.files("pipeline").joinpath(*ARTIFACT_PACKAGE_PATH)
        files = {name: root.joinpath(name).read_bytes() for name in names}
        verifier = root.joinpath(VERIFIER_FILE)
        if not embedding_only and verifier.is_file():
            files[VERIFIER_FILE] = verifier.read_bytes()
        return Artifact(files)
    base = Path(directory)
    files = {name: (base / name).read_bytes() for name in names}
    if not embedding_only and (base / VERIFIER_FILE).is_file():
        files[VERIFIER_FILE] = (base / VERIFIER_FILE).read_bytes()
    return Artifact(files)


class StaticEmbedding:
    """A sentence vector = idf-weighted mean of per-WordPiece vectors (model2vec-style),
    L2-normalised. The table was distilled once from all-MiniLM-L6-v2."""

    def __init__(self, quantised: np.ndarray, scale: np.ndarray, tokenizer_json: str) -> None:
        self._state = (quantised, scale, tokenizer_json)
        self._load()

    def _load(self) -> None:
        from tokenizers import Tokenizer

        quantised, scale, tokenizer_json = self._state
        self.table = quantised.astype(np.float32) * scale.astype(np.float32)[:, None]
        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._cache: dict[str, np.ndarray] = {}

    # Pickled as the int8 table (a quarter of the float32 one); unpickling rebuilds the rest.
    def __getstate__(self) -> tuple[np.ndarray, np.ndarray, str]:
        return self._state

    def __setstate__(self, state: tuple[np.ndarray, np.ndarray, str]) -> None:
        self._state = state
        self._load()

    @classmethod
    def from_artifact(cls, artifact: Artifact) -> StaticEmbedding:
        arrays = np.load(io.BytesIO(artifact.files["embedding.npz"]), allow_pickle=False)
        return cls(arrays["vectors_int8"], arrays["scale"], artifact.files["tokenizer.json"].decode("utf-8"))

    def pieces(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Piece counts per normalised text (texts x vocabulary), special tokens left out."""
        # WordPiece never crosses whitespace, so pieces are cached per whitespace token
        # (after deleting the controls that str.split() would split on but BERT deletes).
        tokens = [text.translate(_DELETED_CONTROLS).split() for text in texts]
        if len(self._cache) > MAX_CACHED_TOKENS:
            self._cache.clear()
        new = sorted({token for row in tokens for token in row if token not in self._cache})
        for token, encoding in zip(new, self._tokenizer.encode_batch(new, add_special_tokens=False) if new else [], strict=True):
            self._cache[token] = np.asarray(encoding.ids, np.int64)
        cache = self._cache
        per_text = [np.concatenate([cache[token] for token in row]) if row else np.zeros(0, np.int64) for row in tokens]
        indptr = np.zeros(len(texts) + 1, np.int64)
        indptr[1:] = np.cumsum([len(ids) for ids in per_text])
        ids = np.concatenate(per_text) if per_text else np.zeros(0, np.int64)
        counts = sp.csr_matrix((np.ones(len(ids), np.float32), ids, indptr), shape=(len(texts), self.table.shape[0]))
        counts.sum_duplicates()
        return counts

    def encode(self, counts: sp.csr_matrix, idf: np.ndarray) -> np.ndarray:
        weighted = counts.multiply(idf[None, :]).tocsr()
        vectors = np.asarray(weighted @ self.table, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-9)


def _bm25_weights(tf: sp.csr_matrix, idf: np.ndarray, k1: float, b: float) -> sp.csr_matrix:
    """Per-document BM25 term weights (documents x vocabulary) of one field."""
    tf = tf.tocsr().astype(np.float32)
    lengths = np.asarray(tf.sum(axis=1)).ravel()
    average = float(lengths.mean()) if len(lengths) and lengths.mean() > 0 else 1.0
    norm = k1 * (1 - b + b * lengths / average)
    rows = np.repeat(np.arange(tf.shape[0]), np.diff(tf.indptr))
    data = tf.data * (k1 + 1) / (tf.data + norm[rows]) * idf[tf.indices]
    return sp.csr_matrix((data.astype(np.float32), tf.indices, tf.indptr), shape=tf.shape)


def char_vectoriser() -> Any:
    """Character 4-grams of lower-cased normalised text, hashed (stateless: nothing to fit)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(analyzer="char_wb", ngram_range=(CHAR_N, CHAR_N), n_features=CHAR_FEATURES, alternate_sign=False, norm=None)


def artifact_digest(artifact: Artifact) -> str:
    """sha256 of the artifact's files: an index built with other files is another index."""
    digest = hashlib.sha256()
    for name in sorted(artifact.files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(artifact.files[name]).digest())
    return digest.hexdigest()


def library_key(entries: Iterable[Mapping[str, Any]], artifact: Artifact | None = None, config: MatchConfig | None = None) -> str:
    """What a built index depends on, as one sha256: the serialised format, the artifact,
    BM25's k1 and b, and each entry's id and the fields the index reads (claim, title,
    summary, date) in library order. Equal keys, equal indexes; any change to the library
    (an import, an approval, an edit, a deletion) is a new key."""
    artifact = artifact if artifact is not None else read_artifact()
    config = config or MatchConfig()
    digest = hashlib.sha256(json.dumps([INDEX_FORMAT, artifact_digest(artifact), config.k1, config.b]).encode())
    for row in entries:
        fields = [str(row["id"]), *(str(row.get(name) or "") for name in (*FIELDS, "date"))]
        digest.update(json.dumps(fields, ensure_ascii=False).encode("utf-8") + b"\n")
    return digest.hexdigest()


@dataclass(frozen=True)
class Background:
    """Document frequencies of the library the re-rankers were trained on (the 13,825 Snopes
    checks), added to every library's own when its idf are computed (BM25 terms, character
    n-grams, WordPieces). Without them the idf, and so the features and the match probability,
    depend on the library's size: against a desk's first approved verdict alone, the verdict's
    own words scored 0.13; with them 0.99 (a library of thousands barely moves)."""

    documents: int
    term_df: dict[str, int]
    gram_df: np.ndarray  # CHAR_FEATURES
    piece_df: np.ndarray  # one per WordPiece

    @classmethod
    def of(cls, counts: LibraryCounts) -> Background:
        term_df, gram_df, piece_df = counts.document_frequencies()
        return cls(len(counts.ids), dict(zip(counts.vocabulary, term_df.tolist(), strict=True)), gram_df, piece_df)

    @classmethod
    def empty(cls, pieces: int) -> Background:
        return cls(0, {}, np.zeros(CHAR_FEATURES, np.int64), np.zeros(pieces, np.int64))

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        grams = np.flatnonzero(self.gram_df)
        np.savez_compressed(
            buffer, documents=np.array([self.documents], np.int64), terms=np.array(list(self.term_df), dtype=np.str_),
            term_df=np.array(list(self.term_df.values()), np.int32), gram_indices=grams.astype(np.int32),
            gram_df=self.gram_df[grams].astype(np.int32), piece_df=self.piece_df.astype(np.int32),
        )
        return buffer.getvalue()

    @classmethod
    def from_artifact(cls, artifact: Artifact, pieces: int) -> Background:
        """The artifact's background, or none (an embedding-only artifact, while training)."""
        if BACKGROUND_FILE not in artifact.files:
            return cls.empty(pieces)
        with np.load(io.BytesIO(artifact.files[BACKGROUND_FILE]), allow_pickle=False) as stored:
            gram_df = np.zeros(CHAR_FEATURES, np.int64)
            gram_df[stored["gram_indices"]] = stored["gram_df"]
            term_df = dict(zip(stored["terms"].tolist(), stored["term_df"].tolist(), strict=True))
            return cls(int(stored["documents"][0]), term_df, gram_df, stored["piece_df"].astype(np.int64))


def base_rate_from_env() -> float | None:
    """FACTCHECK_MATCH_BASE_RATE when set (a share strictly between 0 and 1), else None: the
    base rate the verifier was calibrated for. A bad value stops with a ValueError naming it."""
    value = os.environ.get(BASE_RATE_ENV, "").strip()
    if not value:
        return None
    try:
        rate = float(value)
    except ValueError:
        raise ValueError(f"{BASE_RATE_ENV}={value!r} is not a number") from None
    if not 0 < rate < 1:
        raise ValueError(f"{BASE_RATE_ENV}={value!r} must be strictly between 0 and 1")
    return rate


@dataclass
class MatchConfig:
    k1: float = 0.9
    b: float = 0.4
    candidates: int = CANDIDATES
    # The share of claims assumed to repeat an earlier check (None: the verifier's own).
    base_rate: float | None = field(default_factory=base_rate_from_env)


def verified_claim(claim: str, title: str, summary: str) -> str:
    """What verification reads of an entry: its claim, or, where the claim is no sentence (fewer
    than MIN_CLAIM_WORDS words), its title, else its summary. Read as written, "false" named no
    one and said nothing, and the verifier's defaults for an empty side let a BBC sentence
    about Tupac Shakur through against a check of Sean Combs's arrest."""
    if len(claim.split()) >= MIN_CLAIM_WORDS:
        return claim
    return next((text for text in (title, summary) if len(text.split()) >= MIN_CLAIM_WORDS), claim)


@dataclass
class LibraryCounts:
    """What the text analysis of a library yields, entry by entry (the slow part of a build):
    its terms, character n-gram and WordPiece counts and dates. Everything else in an index
    is arithmetic on these (MatchIndex.from_counts), so they are what is stored."""

    ids: list[str]
    vocabulary: list[str]  # BM25 terms in first-seen order (fields in FIELDS order, then entries)
    tf: dict[str, sp.csr_matrix]  # per field: entries x vocabulary term counts
    grams: sp.csr_matrix  # entries x CHAR_FEATURES: character n-gram counts of the whole entry
    pieces_whole: sp.csr_matrix  # entries x WordPieces: counts of the whole entry
    pieces_claim: sp.csr_matrix  # entries x WordPieces: counts of the claim alone
    days: np.ndarray  # entry dates as ordinals, NaN where unknown
    claims: list[str]  # what the verifier reads of each entry: its claim as written (verified_claim)

    @classmethod
    def analyse(cls, entries: Iterable[Mapping[str, Any]], embedding: StaticEmbedding) -> LibraryCounts:
        rows = list(entries)
        texts = {name: [str(row.get(name) or "") for row in rows] for name in FIELDS}
        # Each text is normalised once (it is what the time goes on), and an empty field not at all.
        normalised = {name: [normalise(text) if text else "" for text in texts[name]] for name in FIELDS}
        field_terms = {name: [words(text) if text else [] for text in normalised[name]] for name in FIELDS}
        vocabulary: dict[str, int] = {}
        for name in FIELDS:
            for doc in field_terms[name]:
                for term in doc:
                    vocabulary.setdefault(term, len(vocabulary))
        whole = [normalise(" ".join(parts)) for parts in zip(texts["claim"], texts["title"], texts["summary"], strict=True)]
        return cls(
            ids=[str(row["id"]) for row in rows],
            vocabulary=list(vocabulary),
            tf={name: _term_counts(field_terms[name], vocabulary) for name in FIELDS},
            grams=char_vectoriser().transform([text.lower() for text in whole]).tocsr(),
            pieces_whole=embedding.pieces(whole),
            pieces_claim=embedding.pieces(normalised["claim"]),
            days=_days([parse_date(row.get("date")) for row in rows]),
            claims=[verified_claim(*parts) for parts in zip(texts["claim"], texts["title"], texts["summary"], strict=True)],
        )

    def document_frequencies(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """How many entries hold each BM25 term (in vocabulary order), each character n-gram
        and each WordPiece: what idf are computed from."""
        present = (self.tf["claim"] + self.tf["title"] + self.tf["summary"]).astype(bool)
        return (
            np.asarray(present.sum(axis=0)).ravel(),
            np.bincount(self.grams.indices, minlength=self.grams.shape[1]),
            np.bincount(self.pieces_whole.indices, minlength=self.pieces_whole.shape[1]),
        )

    def arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {"days": self.days}
        matrices = {**{f"tf_{name}": matrix for name, matrix in self.tf.items()}, "grams": self.grams}
        matrices |= {"pieces_whole": self.pieces_whole, "pieces_claim": self.pieces_claim}
        for name, matrix in matrices.items():
            out[f"{name}.indptr"], out[f"{name}.indices"], out[f"{name}.data"] = matrix.indptr, matrix.indices, matrix.data
        return out

    @classmethod
    def from_arrays(cls, header: Mapping[str, Any], arrays: Mapping[str, np.ndarray], pieces_width: int) -> LibraryCounts:
        ids, vocabulary, claims = list(header["ids"]), list(header["vocabulary"]), list(header["claims"])
        if not all(isinstance(value, str) for value in (*ids, *vocabulary, *claims)) or len(set(vocabulary)) != len(vocabulary):
            raise IndexFormatError("ids, vocabulary and claims must be strings, the vocabulary without repeats")
        if len(claims) != len(ids):
            raise IndexFormatError("claims do not match the entries")

        def matrix(name: str, width: int) -> sp.csr_matrix:
            built = sp.csr_matrix((arrays[f"{name}.data"], arrays[f"{name}.indices"], arrays[f"{name}.indptr"]), shape=(len(ids), width))
            built.check_format(full_check=True)
            return built

        days = arrays["days"]
        if days.shape != (len(ids),) or days.dtype != np.float64:
            raise IndexFormatError("dates do not match the entries")
        return cls(
            ids=ids,
            vocabulary=vocabulary,
            tf={name: matrix(f"tf_{name}", len(vocabulary)) for name in FIELDS},
            grams=matrix("grams", CHAR_FEATURES),
            pieces_whole=matrix("pieces_whole", pieces_width),
            pieces_claim=matrix("pieces_claim", pieces_width),
            days=days,
            claims=claims,
        )


class MatchIndex:
    """A built library: sparse BM25 weights, character n-gram and embedding vectors of
    every entry. Picklable; MatchIndex.to_bytes/from_bytes store it compactly (its
    LibraryCounts), so a library's index is built once and kept (pipeline.match_library)."""

    vocabulary: dict[str, int]
    combined: sp.csr_matrix  # terms x entries: BM25 weights over the whole entry
    fields_by_doc: dict[str, sp.csr_matrix]  # entries x terms, per field
    char_vectoriser: Any
    char_idf: np.ndarray
    char_docs: sp.csr_matrix
    embedding: StaticEmbedding
    piece_idf: np.ndarray
    doc_vectors: np.ndarray
    claim_vectors: np.ndarray
    doc_days: np.ndarray
    rerankers: dict[str, Reranker]
    verifier: Verifier | None
    counts: LibraryCounts
    artifact_digest: str

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.config = MatchConfig()

    @classmethod
    def build(cls, entries: Iterable[Mapping[str, Any]], artifact: Artifact | None = None, config: MatchConfig | None = None) -> MatchIndex:
        artifact = artifact if artifact is not None else read_artifact()
        embedding = StaticEmbedding.from_artifact(artifact)
        return cls.from_counts(LibraryCounts.analyse(entries, embedding), artifact, config, embedding=embedding)

    @classmethod
    def from_counts(
        cls,
        counts: LibraryCounts,
        artifact: Artifact,
        config: MatchConfig | None = None,
        *,
        embedding: StaticEmbedding | None = None,
    ) -> MatchIndex:
        """The index from its entries' counts: idf, BM25 weights, n-gram TF-IDF and embedding
        vectors, all sparse/dense arithmetic (no text is read again)."""
        index = cls()
        index.config = config or MatchConfig()
        index.counts = counts
        index.artifact_digest = artifact_digest(artifact)
        index.ids = counts.ids
        index.vocabulary = {term: number for number, term in enumerate(counts.vocabulary)}
        index.embedding = embedding if embedding is not None else StaticEmbedding.from_artifact(artifact)
        background = Background.from_artifact(artifact, index.embedding.table.shape[0])
        # Every idf counts the background library's documents with the library's own (Background).
        count = len(counts.ids) + background.documents
        term_df, gram_df, piece_df = counts.document_frequencies()
        df = (term_df + np.array([background.term_df.get(term, 0) for term in counts.vocabulary], np.int64)).astype(np.float32)
        idf = np.log(1 + (count - df + 0.5) / (df + 0.5)).astype(np.float32)
        tf = counts.tf
        config = index.config
        index.combined = _bm25_weights(tf["claim"] + tf["title"] + tf["summary"], idf, config.k1, config.b).T.tocsr()
        index.fields_by_doc = {name: _bm25_weights(tf[name], idf, config.k1, config.b) for name in FIELDS}

        index.char_vectoriser = char_vectoriser()
        char_df = (gram_df + background.gram_df).astype(np.float32)
        index.char_idf = np.log((1 + count) / (1 + char_df)).astype(np.float32) + 1
        index.char_docs = _l2_rows(_log_tf(counts.grams).multiply(index.char_idf[None, :]).tocsr())

        index.piece_idf = np.log((1 + count) / (1 + (piece_df + background.piece_df).astype(np.float32))).astype(np.float32)
        index.doc_vectors = index.embedding.encode(counts.pieces_whole, index.piece_idf)
        index.claim_vectors = index.embedding.encode(counts.pieces_claim, index.piece_idf)
        index.doc_days = counts.days
        stored = json.loads(artifact.files["reranker.json"]) if "reranker.json" in artifact.files else {}
        index.rerankers = {name: Reranker.from_json(model) for name, model in stored.items()}
        index.verifier = Verifier.from_json(json.loads(artifact.files[VERIFIER_FILE])) if VERIFIER_FILE in artifact.files else None
        return index

    def to_bytes(self, key: str = "") -> bytes:
        """The index as bytes to keep (in PostgreSQL): its LibraryCounts as numpy arrays (no
        pickle), a header naming the format, the artifact, k1, b and `key` (the
        library_key it was built for), and a sha256 of it all in front."""
        header = {
            "format": INDEX_FORMAT, "key": key, "artifact": self.artifact_digest, "k1": self.config.k1, "b": self.config.b,
            "ids": self.counts.ids, "vocabulary": self.counts.vocabulary, "claims": self.counts.claims,
        }
        buffer = io.BytesIO()
        arrays = {"header": np.frombuffer(json.dumps(header, ensure_ascii=False).encode("utf-8"), np.uint8), **self.counts.arrays()}
        np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
        payload = buffer.getvalue()
        return INDEX_MAGIC + hashlib.sha256(payload).digest() + payload

    @classmethod
    def from_bytes(cls, data: bytes, *, key: str | None = None, artifact: Artifact | None = None, config: MatchConfig | None = None) -> MatchIndex:
        """An index from to_bytes, checked before it is trusted (check_index_bytes), then its
        arrays. Raises IndexFormatError for anything but an intact index of that library."""
        artifact = artifact if artifact is not None else read_artifact()
        config = config or MatchConfig()
        header = check_index_bytes(data, key=key, artifact=artifact, config=config)
        embedding = StaticEmbedding.from_artifact(artifact)
        try:
            with np.load(io.BytesIO(data[len(INDEX_MAGIC) + 32 :]), allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in stored.files if name != "header"}
            counts = LibraryCounts.from_arrays(header, arrays, embedding.table.shape[0])
        except (KeyError, OSError, TypeError, ValueError) as error:
            raise IndexFormatError(f"index arrays unreadable: {error}") from None
        return cls.from_counts(counts, artifact, config, embedding=embedding)

    def __len__(self) -> int:
        return len(self.ids)

    def query_terms(self, normalised: Sequence[str]) -> sp.csr_matrix:
        """Which library terms each (normalised) text holds: binary, a repeat counts once."""
        matrix = _term_counts([words(t) for t in normalised], self.vocabulary, known_only=True)
        matrix.data[:] = 1
        return matrix

    def candidates(self, query: sp.csr_matrix, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(query rows, library rows, BM25 scores) of each text's `limit` best entries by
        BM25 over the whole entry, best first, ties broken by library order."""
        pair_query: list[np.ndarray] = []
        pair_doc: list[np.ndarray] = []
        pair_score: list[np.ndarray] = []
        for start in range(0, query.shape[0], BLOCK):
            scores = (query[start : start + BLOCK] @ self.combined).tocsr()
            for offset in range(scores.shape[0]):
                low, high = scores.indptr[offset], scores.indptr[offset + 1]
                if high == low:
                    continue
                docs, values = scores.indices[low:high], scores.data[low:high]
                if high - low > limit:
                    # Everything scoring at least the limit-th best, so ties there stay in.
                    threshold = np.partition(values, high - low - limit)[high - low - limit]
                    keep = values >= threshold
                    docs, values = docs[keep], values[keep]
                order = np.lexsort((docs, -values))[:limit]
                pair_query.append(np.full(len(order), start + offset, np.int64))
                pair_doc.append(docs[order])
                pair_score.append(values[order].astype(np.float64))
        if not pair_query:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(pair_query), np.concatenate(pair_doc), np.concatenate(pair_score)

    def features(self, texts: Sequence[str], dates: Sequence[date | None] | None = None, limit: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pair query rows, pair library rows, feature matrix: FEATURES then DATE_FEATURES)
        for the candidates of texts. The date features are 0 where either date is unknown."""
        limit = limit or self.config.candidates
        normalised = [normalise(t) for t in texts]
        query = self.query_terms(normalised)
        q_rows, d_rows, combined = self.candidates(query, limit)
        if len(q_rows) == 0:
            return q_rows, d_rows, np.zeros((0, len(FEATURES) + len(DATE_FEATURES)))
        per_field = [_pair_dot(query, self.fields_by_doc[name], q_rows, d_rows) for name in FIELDS]
        grams = self.char_vectoriser.transform([t.lower() for t in normalised])
        q_chars = _l2_rows(_log_tf(grams).multiply(self.char_idf[None, :]).tocsr())
        char_all = _pair_dot(q_chars, self.char_docs, q_rows, d_rows)
        q_vectors = self.embedding.encode(self.embedding.pieces(normalised), self.piece_idf)
        emb_all = _pair_cosine(q_vectors, self.doc_vectors, q_rows, d_rows)
        emb_claim = _pair_cosine(q_vectors, self.claim_vectors, q_rows, d_rows)
        starts = np.r_[0, np.flatnonzero(np.diff(q_rows)) + 1]
        run = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(q_rows)]))
        rank = np.arange(len(q_rows)) - starts[run]
        columns = [
            np.log1p(combined),
            combined / combined[starts][run],
            *(np.log1p(s) for s in per_field),
            char_all,
            char_all - np.maximum.reduceat(char_all, starts)[run],
            emb_all,
            emb_claim,
            emb_all - np.maximum.reduceat(emb_all, starts)[run],
            np.log1p(rank),
        ]
        q_days = _days(dates if dates is not None else [None] * len(texts))
        delta = self.doc_days[d_rows] - q_days[q_rows]
        known = ~np.isnan(delta)
        delta = np.where(known, delta, 0.0)
        columns += [
            known.astype(np.float64),
            np.log1p(np.clip(delta, 0, None)),
            np.log1p(np.clip(-delta, 0, None)),
            (known & (np.abs(delta) <= 3)).astype(np.float64),
            (known & (delta >= 0) & (delta <= 30)).astype(np.float64),
        ]
        return q_rows, d_rows, np.column_stack(columns)

    def match(
        self, texts: Sequence[str], top: int = 5, dates: Sequence[date | None] | None = None, min_score: float = 0.0
    ) -> list[list[tuple[str, float]]]:
        """The `top` best library entries per text, best first, with their match probability
        (rounded to 6 places; ties by library order), leaving out those below `min_score`.
        `dates` (optional, one per text): when the claim was made, e.g. the article's
        publication date; a pair where both dates are known is scored by the re-ranker that
        uses their distance. With a verifier in the artifact, the re-rankers' best pairs are
        read again by it (same actors, predicate, figures, period: pipeline.nlp.verification)
        and the probability is its own, at the configured base rate. An empty or
        all-stop-word text gets no matches."""
        results: list[list[tuple[str, float]]] = [[] for _ in texts]
        if not texts or not self.ids or top <= 0:
            return results
        q_rows, d_rows, scores = self.scored(texts, top, dates, min_score)
        scores = np.round(scores, 6)
        for start, stop in _runs(q_rows):
            docs = d_rows[start:stop]
            order = np.lexsort((docs, -scores[start:stop]))[:top]
            results[q_rows[start]] = [(self.ids[docs[i]], float(scores[start + i])) for i in order if scores[start + i] >= min_score]
        return results

    def scored(
        self, texts: Sequence[str], top: int = 5, dates: Sequence[date | None] | None = None, min_score: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pair query rows, pair library rows, match probability) of the pairs `match` ranks:
        every candidate scored by the re-rankers; with a verifier, only each text's best
        max(top, VERIFY_DEPTH) of them, scored by the verifier, less those that could not reach
        `min_score` whatever their parts (`Verifier.ceiling`; most pairs of news claims)."""
        q_rows, d_rows, matrix = self.features(texts, dates, max(top, self.config.candidates))
        if len(q_rows) == 0 or self.verifier is None:
            return q_rows, d_rows, self.probability(matrix) if len(q_rows) else np.zeros(0)
        keep, verify = self.verification_features(texts, q_rows, d_rows, matrix, max(top, VERIFY_DEPTH), min_score)
        return q_rows[keep], d_rows[keep], self.verifier.probability(verify, self.config.base_rate)

    def verification_features(
        self, texts: Sequence[str], q_rows: np.ndarray, d_rows: np.ndarray, matrix: np.ndarray, depth: int, floor: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """(which pairs were kept: each text's `depth` best by the re-rankers, in pair order, less
        those whose ceiling is under `floor`; their VERIFY_FEATURES)."""
        raw = self.probability(matrix)
        # Within each text's run of pairs: best first, ties by library order; keep the first `depth`.
        order = np.lexsort((d_rows, -raw, q_rows))
        starts = np.r_[0, np.flatnonzero(np.diff(q_rows[order])) + 1]
        place = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
        keep = np.sort(order[place < depth])
        embedding = matrix[keep, FEATURES.index("embedding_cosine_claim")]
        chars = matrix[keep, FEATURES.index("char_cosine")]
        if floor > 0 and self.verifier is not None:
            # Half a unit of the sixth place below the floor: `match` rounds before it compares.
            reachable = self.verifier.ceiling(np.column_stack([reranker_logits(raw[keep]), embedding, chars]), self.config.base_rate) >= floor - 5e-7
            keep, embedding, chars = keep[reachable], embedding[reachable], chars[reachable]
        claims = [texts[i] for i in q_rows[keep]]
        checks = [self.counts.claims[i] for i in d_rows[keep]]
        return keep, features_matrix(claims, checks, raw[keep], embedding, chars)

    def probability(self, matrix: np.ndarray) -> np.ndarray:
        """Match probability per pair: the dated model where both dates are known."""
        if not self.rerankers:
            raise RuntimeError("this index was built without re-rankers (an embedding-only artifact)")
        dated = matrix[:, len(FEATURES)] > 0
        out = self.rerankers["undated"].probability(matrix[:, : len(FEATURES)])
        if dated.any():
            out[dated] = self.rerankers["dated"].probability(matrix[dated])
        return out


@dataclass(frozen=True)
class Reranker:
    """A standardised logistic regression, stored as JSON (no pickled estimator)."""

    features: tuple[str, ...]
    coefficients: np.ndarray
    intercept: float
    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def from_json(cls, model: Mapping[str, Any]) -> Reranker:
        return cls(
            tuple(model["features"]),
            np.asarray(model["coefficients"], np.float64),
            float(model["intercept"]),
            np.asarray(model["mean"], np.float64),
            np.asarray(model["scale"], np.float64),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "coefficients": self.coefficients.tolist(),
            "intercept": self.intercept,
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
        }

    def probability(self, matrix: np.ndarray) -> np.ndarray:
        if matrix.shape[1] != len(self.features):
            raise ValueError(f"re-ranker expects {len(self.features)} features, got {matrix.shape[1]}")
        z = ((matrix - self.mean) / self.scale) @ self.coefficients + self.intercept
        return 1 / (1 + np.exp(-z))


FEATURES = (
    "bm25_log",
    "bm25_relative",
    "bm25_claim_log",
    "bm25_title_log",
    "bm25_summary_log",
    "char_cosine",
    "char_cosine_gap",
    "embedding_cosine",
    "embedding_cosine_claim",
    "embedding_cosine_gap",
    "bm25_rank_log",
)
DATE_FEATURES = ("dates_known", "days_after_log", "days_before_log", "within_3_days", "within_30_days_after")


def check_index_bytes(data: bytes, *, key: str | None, artifact: Artifact, config: MatchConfig) -> dict[str, Any]:
    """The header of serialised index bytes once they pass: the checksum, then the format,
    the artifact, k1 and b and (given `key`) the library key they were built for. Reads the
    header alone, so whoever only hands the bytes on can afford it. Raises IndexFormatError."""
    head = len(INDEX_MAGIC)
    if data[:head] != INDEX_MAGIC or hashlib.sha256(data[head + 32 :]).digest() != data[head : head + 32]:
        raise IndexFormatError("not an index, or its bytes are damaged (checksum)")
    try:
        with np.load(io.BytesIO(data[head + 32 :]), allow_pickle=False) as stored:
            header = json.loads(stored["header"].tobytes().decode("utf-8"))
    except (KeyError, OSError, ValueError, UnicodeDecodeError) as error:
        raise IndexFormatError(f"index unreadable: {error}") from None
    if not isinstance(header, dict):
        raise IndexFormatError("index header is not an object")
    expected = {"format": INDEX_FORMAT, "artifact": artifact_digest(artifact), "k1": config.k1, "b": config.b}
    if key is not None:
        expected["key"] = key
    wrong = sorted(name for name, value in expected.items() if header.get(name) != value)
    if wrong:
        raise IndexFormatError(f"index built for another {', '.join(wrong)}")
    return header


def _days(dates: Sequence[date | None]) -> np.ndarray:
    return np.array([d.toordinal() if d is not None else np.nan for d in dates], np.float64)


def _runs(rows: np.ndarray) -> Iterator[tuple[int, int]]:
    """(start, stop) of each run of equal values in a sorted-by-run array."""
    if len(rows) == 0:
        return
    edges = np.flatnonzero(np.diff(rows)) + 1
    starts = np.r_[0, edges]
    stops = np.r_[edges, len(rows)]
    yield from zip(starts.tolist(), stops.tolist(), strict=True)


def _term_counts(documents: Sequence[Sequence[str]], vocabulary: Mapping[str, int], known_only: bool = False) -> sp.csr_matrix:
    indptr = [0]
    indices: list[int] = []
    for doc in documents:
        if known_only:
            indices.extend(vocabulary[t] for t in doc if t in vocabulary)
        else:
            indices.extend(vocabulary[t] for t in doc)
        indptr.append(len(indices))
    matrix = sp.csr_matrix(
        (np.ones(len(indices), np.float32), np.asarray(indices, np.int64), np.asarray(indptr, np.int64)), shape=(len(documents), len(vocabulary))
    )
    matrix.sum_duplicates()
    return matrix


def _log_tf(matrix: sp.spmatrix) -> sp.csr_matrix:
    matrix = sp.csr_matrix(matrix, dtype=np.float32)
    matrix.data = np.log1p(matrix.data)
    return matrix


def _l2_rows(matrix: sp.csr_matrix) -> sp.csr_matrix:
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1 / np.maximum(norms, 1e-9)) @ matrix, dtype=np.float32)


def _pair_cosine(left: np.ndarray, right: np.ndarray, left_rows: np.ndarray, right_rows: np.ndarray) -> np.ndarray:
    """Row-wise dot products of float32 unit vectors, in chunks (bounded temporaries)."""
    out = np.zeros(len(left_rows), np.float64)
    chunk = 20_000
    for start in range(0, len(left_rows), chunk):
        stop = start + chunk
        out[start:stop] = np.einsum("ij,ij->i", left[left_rows[start:stop]], right[right_rows[start:stop]])
    return out


def _pair_dot(left: sp.csr_matrix, right: sp.csr_matrix, left_rows: np.ndarray, right_rows: np.ndarray) -> np.ndarray:
    """Row-wise dot products left[left_rows[i]] . right[right_rows[i]], in chunks."""
    out = np.zeros(len(left_rows), np.float64)
    chunk = 20_000
    for start in range(0, len(left_rows), chunk):
        stop = start + chunk
        product = left[left_rows[start:stop]].multiply(right[right_rows[start:stop]])
        out[start:stop] = np.asarray(product.sum(axis=1)).ravel()
    return out


def read_library(lines: Iterable[str]) -> list[dict[str, str]]:
    """Library entries from JSON lines (`id`, `claim`, optional text fields); blank lines
    are skipped. Raises LibraryError naming the first bad line."""
    entries: list[dict[str, str]] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise LibraryError(number, f"not JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise LibraryError(number, f"expected a JSON object, got {type(row).__name__}")
        for name in ("id", "claim"):
            if name not in row or row[name] is None:
                raise LibraryError(number, f'missing "{name}"')
        if not isinstance(row["id"], str | int) or isinstance(row["id"], bool) or not str(row["id"]).strip():
            raise LibraryError(number, '"id" must be a non-empty string or an integer')
        if not isinstance(row["claim"], str) or not row["claim"].strip():
            raise LibraryError(number, '"claim" must be a non-empty string')
        for name in OPTIONAL_FIELDS:
            if row.get(name) is not None and not isinstance(row[name], str):
                raise LibraryError(number, f'"{name}" must be a string')
        key = str(row["id"])
        if key in seen:
            raise LibraryError(number, f'duplicate id "{key}"')
        seen.add(key)
        if any(c in key for c in "\t\n\r"):
            raise LibraryError(number, '"id" must not contain tabs or line breaks')
        entries.append({"id": key, "claim": row["claim"], **{name: row[name] for name in OPTIONAL_FIELDS if row.get(name)}})
    return entries


def mean_average_precision(rankings: Mapping[str, Sequence[str]], relevant: Mapping[str, set[str]], depth: int = 5) -> float:
    """MAP@depth as CheckThat! scores it: precision at each relevant hit in the top
    `depth`, summed and divided by the number of relevant entries; queries in `relevant`."""
    total = 0.0
    for query, gold in relevant.items():
        hits = 0
        precision_sum = 0.0
        for rank, entry in enumerate(list(rankings.get(query, ()))[:depth], start=1):
            if entry in gold:
                hits += 1
                precision_sum += hits / rank
        total += precision_sum / len(gold)
    return total / max(1, len(relevant))


__all__ = [
    "Artifact",
    "IndexFormatError",
    "LibraryCounts",
    "LibraryError",
    "MatchConfig",
    "MatchIndex",
    "check_index_bytes",
    "library_key",
    "mean_average_precision",
    "normalise",
    "read_artifact",
    "read_library",
    "terms",
]
