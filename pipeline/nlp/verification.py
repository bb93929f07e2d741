"""Verification: is a retrieved fact-check the same claim, or only the same topic?

Retrieval (pipeline.nlp.matching) finds checks that share names and a subject with a claim;
on news that is most of what it finds ("Yukos filed for Chapter 11" -> "Nordstrom filed for
Chapter 11"). This stage reads the parts of both claims and says how far they agree:

- who: the names (runs of capitalised words and acronyms, not sentence-initial function
  words), in both directions, as shares and as counts of names the other side lacks: a
  repeat names the same actors; a claim about another company or another Stallone shares a
  name or two at most;
- what is said of them: the content words that are not names (the predicate and its
  objects), in both directions;
- figures and periods: numbers with their scale (0.2%, $1.8bn, 300,000) and years; both
  sides giving figures and none agreeing is a different claim;
- negation: one side denying what the other asserts;
- the medium: a check of what a photograph or a video shows is repeated by a claim that
  points at one (a picture, footage, an attached image's link); a news sentence about the
  same people that mentions none is another claim ("Disney and Prince Al-Walid will buy the
  new stock" against "A photograph shows a young Obama with Prince Al-Waleed").

`pair_features` turns a (claim, check) pair into VERIFY_FEATURES; the verifier (a logistic
regression over these and the re-ranker's own score, `Verifier`) is trained by
`python -m pipeline.train_verification` on the news matching set (docs/matching_labels.md)
and stored as verifier.json beside the re-rankers. Pure Python: no Django, no Spark.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

VERIFY_FEATURES = (
    "reranker_logit",
    "names_query_covered",
    "names_check_covered",
    "names_both_covered",
    "names_query_none",
    "names_check_none",
    "names_query_missing",
    "names_check_missing",
    "content_query_covered",
    "content_check_covered",
    "numbers_both",
    "numbers_agree",
    "numbers_conflict",
    "years_both",
    "years_conflict",
    "negation_differs",
    "media_uncued",
    "actor_query_covered",
    "actor_check_covered",
    "embedding_cosine_claim",
    "char_cosine",
)

# The features read from the claims' parts, with the range each can take: what `Verifier.ceiling`
# bounds a pair's probability by before they are read (the others are known from retrieval).
RETRIEVAL_FEATURES = ("reranker_logit", "embedding_cosine_claim", "char_cosine")
PART_RANGES = {
    name: (0.0, 5.0) if name.endswith("_missing") else (0.0, 1.0)
    for name in VERIFY_FEATURES
    if name not in RETRIEVAL_FEATURES
}

_CAPITALISED = re.compile(r"\b(?:[A-Z][\w'’.-]*[A-Za-z0-9]|[A-Z])(?:\s+(?:of|de|bin|al|van|von|the)?\s*[A-Z][\w'’.-]*[A-Za-z0-9])*")
_NUMBER = re.compile(
    r"(?<![\w.])([$£€])?\s?(\d+(?:[.,]\d+)*)\s?(%|percent|per cent|bn|billion|m\b|million|k\b|thousand|trillion|tn)?",
    re.IGNORECASE,
)
_SPELLED = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "half": 0.5, "twice": 2}
_SPELLED_WORD = re.compile(r"\b(" + "|".join(_SPELLED) + r")\b")
_SCALE = {"bn": 1e9, "billion": 1e9, "m": 1e6, "million": 1e6, "k": 1e3, "thousand": 1e3, "trillion": 1e12, "tn": 1e12}
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)s?\b")
_NEGATION_WORDS = frozenset("not no never none nobody nothing neither nor without cannot denies denied deny false falsely".split())
_TOKEN = re.compile(r"[a-z0-9]+")
# A claim about what an image or a recording shows, and any mention of one (a tweet's attached
# picture or video is its pic.twitter.com or t.co link).
_MEDIA = r"(?:photo(?:graph)?s?|pic(?:ture)?s?|images?|videos?|footage|clips?|memes?|screenshots?|recordings?)"
_MEDIA_CLAIM = re.compile(r"\b" + _MEDIA + r"\b[^.;]{0,60}?\b(?:shows?|showed|shown|depicts?|captures?|documents?|reveals?)\b", re.IGNORECASE)
_MEDIA_CUE = re.compile(
    r"\b(?:" + _MEDIA + r"|pictured|photographed|filmed|tapes?|taped|camera|cctv|mural|painting|poster|cartoon|depict\w*|watch|instagram|youtube|tiktok)\b"
    r"|pic\.twitter\.com|https?://t\.co/",
    re.IGNORECASE,
)
# What a claim's parts are not read from: links, a tweet's trailer ("— Name (@handle) May 4, 2017")
# and the day of a written date ("12 January", "January 12,"), which is no figure of the claim.
_URL = re.compile(r"https?://\S+|pic\.twitter\.com/\S+|\bwww\.\S+")
_TRAILER = re.compile(r"[—–-]+\s*[^—–\n]{0,80}\(@\w+\)\s*\w+ \d{1,2}, \d{4}\W*$")
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_DAY = re.compile(r"\b(?:" + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?\b,?|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"(?=\W))")
# A handle or a hashtag is read as the words it joins ("#BoycottPepsi": Boycott Pepsi).
_TAG = re.compile(r"[@#](\w+)")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Capitalised words that name nobody: sentence openers, titles, months and days, the words a
# check's own phrasing starts with ("Says", "Photograph shows").
_NOT_NAMES = frozenset(
    """a an the this that these those it its he she they we i you our their his her my in on at of for to by from with and or but
    as if when while after before since during says said say photo photograph photographs image images video videos a
    mr mrs ms dr sir lord lady prof president presidents prime minister senator sen rep gov governor former then
    january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept
    oct nov dec monday tuesday wednesday thursday friday saturday sunday last next first new shows show reports report
    according meanwhile however but also even yet still so there here what who why how where which all some many most
    more less one two three four five six seven eight nine ten us u.s""".split()
)
_STOP = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between both but by
    can could did do does doing down during each few for from further had has have having he her here hers herself him himself
    his how i if in into is it its itself just let me more most my myself nor of off on once only or other our ours ourselves
    out over own same she should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with would you your yours
    yourself yourselves says said say also s t photo photograph shows show image video claim claims""".split()
)


@dataclass(frozen=True)
class ClaimParts:
    """What verification reads of one claim."""

    names: frozenset[str]  # name words, lower case, plural-stripped
    content: frozenset[str]  # content words that are not names
    words: frozenset[str]  # every content word (names included)
    numbers: frozenset[float]  # figures, scaled (1.8bn -> 1.8e9); years left out
    years: frozenset[int]
    negated: bool
    actor: frozenset[str]  # the first name (a claim's subject, usually): its words
    media_claim: bool = False  # says what a photograph or a video shows
    media_cue: bool = False  # mentions an image or a recording at all


@lru_cache(maxsize=300_000)
def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("us", "ss", "is")):
        return word[:-1]
    return word


def _number(digits: str, unit: str | None) -> float | None:
    text = digits.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", digits) else digits.replace(",", ".")
    try:
        value = float(text)
    except ValueError:
        return None
    scale = _SCALE.get((unit or "").lower().strip(), 1.0)
    return round(value * scale, 6)


@lru_cache(maxsize=200_000)
def claim_parts(text: str) -> ClaimParts:
    """The parts of a claim's text (cached: a library's checks recur across claims)."""
    text = unicodedata.normalize("NFKC", text).replace("’", "'")
    media_cue = bool(_MEDIA_CUE.search(text))
    text = _TRAILER.sub("", _URL.sub(" ", text))
    text = _TAG.sub(lambda m: _CAMEL.sub(" ", m.group(1)), text)
    text = _DAY.sub(lambda m: re.sub(r"\d+(?:st|nd|rd|th)?,?", "", m.group(0)), text)
    names: set[str] = set()
    actor: set[str] = set()
    for match in _CAPITALISED.finditer(text):
        run = {_stem(word) for word in _TOKEN.findall(match.group(0).lower()) if word not in _NOT_NAMES and not word.isdigit() and len(word) > 1}
        if run and not actor:
            actor = run
        names |= run
    lower = text.lower()
    tokens = _TOKEN.findall(lower)
    words = {_stem(w) for w in tokens if w not in _STOP and not w.isdigit()}
    years = {int(m.group(1)) for m in _YEAR.finditer(text)}
    numbers: set[float] = set()
    for match in _NUMBER.finditer(text):
        currency, digits, unit = match.groups()
        if not unit and not currency and re.fullmatch(r"(1[89]\d\d|20\d\d)", digits):
            continue  # a year
        value = _number(digits, unit)
        if value is not None:
            numbers.add(value)
    if not numbers:
        numbers.update(float(_SPELLED[word]) for word in _SPELLED_WORD.findall(lower))
    return ClaimParts(
        names=frozenset(names),
        content=frozenset(words - names),
        words=frozenset(words),
        numbers=frozenset(numbers),
        years=frozenset(years),
        negated="n't" in lower or not _NEGATION_WORDS.isdisjoint(tokens),
        actor=frozenset(actor),
        media_claim=bool(_MEDIA_CLAIM.search(text)),
        media_cue=media_cue,
    )


def _covered(part: frozenset[str], other: frozenset[str]) -> float:
    return len(part & other) / len(part) if part else 0.0


def _numbers_agree(left: frozenset[float], right: frozenset[float]) -> bool:
    return any(abs(a - b) <= 0.01 * max(abs(a), abs(b), 1e-9) for a in left for b in right)


def pair_features(claim: ClaimParts, check: ClaimParts, reranker_logit: float, embedding_cosine: float, char_cosine: float) -> list[float]:
    """VERIFY_FEATURES of one (claim, check) pair; names are matched against every word of the
    other side (a name may be written in lower case there, or be part of a longer name)."""
    names_query = _covered(claim.names, check.words)
    names_check = _covered(check.names, claim.words)
    numbers_both = bool(claim.numbers and check.numbers)
    agree = numbers_both and _numbers_agree(claim.numbers, check.numbers)
    years_both = bool(claim.years and check.years)
    return [
        reranker_logit,
        names_query,
        names_check,
        min(names_query, names_check),
        float(not claim.names),
        float(not check.names),
        float(min(len(claim.names - check.words), 5)),
        float(min(len(check.names - claim.words), 5)),
        _covered(claim.content, check.words),
        _covered(check.content, claim.words),
        float(numbers_both),
        float(agree),
        float(numbers_both and not agree),
        float(years_both),
        float(years_both and not (claim.years & check.years)),
        float(claim.negated != check.negated),
        float((check.media_claim and not claim.media_cue) or (claim.media_claim and not check.media_cue)),
        _covered(claim.actor, check.words) if claim.actor else 0.5,
        _covered(check.actor, claim.words) if check.actor else 0.5,
        embedding_cosine,
        char_cosine,
    ]


@dataclass(frozen=True)
class Verifier:
    """A standardised logistic regression over VERIFY_FEATURES (which pairs are the same
    claim), then calibrated on each claim's best pair (Platt: `slope`, `offset` on its logit)
    where a known share of claims (`training_base_rate`) had an earlier check, and shifted to
    the base rate a desk sees (`base_rate`): the odds scale by the ratio of the two rates' odds.
    The probability so reads "this claim repeats this check" for a claim's best match."""

    features: tuple[str, ...]
    coefficients: np.ndarray
    intercept: float
    mean: np.ndarray
    scale: np.ndarray
    training_base_rate: float
    base_rate: float  # the assumed share of a desk's claims that repeat an earlier check
    slope: float = 1.0
    offset: float = 0.0
    # The range each feature took in training: a pair is read within it, since a linear model
    # extrapolates badly (a check's own words have a character cosine of 1, which no training
    # pair reached, and the cosines' weights only correct the re-rankers within that range).
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None

    @classmethod
    def from_json(cls, model: Mapping[str, Any]) -> Verifier:
        unknown = [name for name in model["features"] if name not in VERIFY_FEATURES]
        if unknown:
            raise ValueError(f"verifier reads features this release does not compute: {', '.join(unknown)}")
        return cls(
            tuple(model["features"]),
            np.asarray(model["coefficients"], np.float64),
            float(model["intercept"]),
            np.asarray(model["mean"], np.float64),
            np.asarray(model["scale"], np.float64),
            float(model["training_base_rate"]),
            float(model["base_rate"]),
            float(model.get("slope", 1.0)),
            float(model.get("offset", 0.0)),
            np.asarray(model["lower"], np.float64) if "lower" in model else None,
            np.asarray(model["upper"], np.float64) if "upper" in model else None,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "coefficients": self.coefficients.tolist(),
            "intercept": self.intercept,
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "training_base_rate": self.training_base_rate,
            "base_rate": self.base_rate,
            "slope": self.slope,
            "offset": self.offset,
            **({"lower": self.lower.tolist()} if self.lower is not None else {}),
            **({"upper": self.upper.tolist()} if self.upper is not None else {}),
        }

    def prior_shift(self, base_rate: float | None = None) -> float:
        rate = self.base_rate if base_rate is None else base_rate
        if not 0 < rate < 1:
            raise ValueError(f"base rate must be between 0 and 1 (exclusive), got {rate}")
        return float(np.log(rate / (1 - rate)) - np.log(self.training_base_rate / (1 - self.training_base_rate)))

    def select(self, matrix: np.ndarray) -> np.ndarray:
        """The verifier's own columns of a VERIFY_FEATURES matrix (a verifier fitted by an earlier
        release, or refitted by a desk from one, reads fewer features than are computed now); a
        matrix of its own columns is returned as it is."""
        if matrix.shape[1] == len(self.features):
            return matrix
        if matrix.shape[1] == len(VERIFY_FEATURES):
            return matrix[:, [VERIFY_FEATURES.index(name) for name in self.features]]
        raise ValueError(f"verifier expects {len(self.features)} features, got {matrix.shape[1]}")

    def probability(self, matrix: np.ndarray, base_rate: float | None = None) -> np.ndarray:
        z = self.slope * self.logit(matrix) + self.offset + self.prior_shift(base_rate)
        return 1 / (1 + np.exp(-z))

    def ceiling(self, retrieval: np.ndarray, base_rate: float | None = None) -> np.ndarray:
        """The highest probability each pair could get whatever its parts, from RETRIEVAL_FEATURES
        alone (columns in that order): a pair whose ceiling is under the floor a caller keeps
        need not be read (the parts are the slow half of the stage)."""
        known = [self.features.index(name) for name in RETRIEVAL_FEATURES]
        retrieval = self._within(retrieval, known)
        base = ((retrieval - self.mean[known]) / self.scale[known]) @ self.coefficients[known] + self.intercept
        high = low = 0.0
        for i, name in enumerate(self.features):
            if name in RETRIEVAL_FEATURES:
                continue
            lo, hi = PART_RANGES[name]
            ends = self.coefficients[i] * (np.array([lo, hi]) - self.mean[i]) / self.scale[i]
            high, low = high + float(ends.max()), low + float(ends.min())
        z = self.slope * (base + (high if self.slope >= 0 else low)) + self.offset + self.prior_shift(base_rate)
        return 1 / (1 + np.exp(-z))

    def logit(self, matrix: np.ndarray) -> np.ndarray:
        """The pair model's logit, before calibration."""
        matrix = self.select(matrix)
        return ((self._within(matrix, list(range(len(self.features)))) - self.mean) / self.scale) @ self.coefficients + self.intercept

    def _within(self, matrix: np.ndarray, columns: list[int]) -> np.ndarray:
        if self.lower is not None:
            matrix = np.maximum(matrix, self.lower[columns])
        if self.upper is not None:
            matrix = np.minimum(matrix, self.upper[columns])
        return matrix


def reranker_logits(probability: np.ndarray) -> np.ndarray:
    """The re-rankers' probabilities as the logits the verifier reads (clipped: a probability of
    exactly 0 or 1 has none)."""
    clipped = np.clip(np.asarray(probability, np.float64), 1e-6, 1 - 1e-6)
    return np.log(clipped / (1 - clipped))


def features_matrix(
    claims: Sequence[str], checks: Sequence[str], reranker: np.ndarray, embedding: np.ndarray, chars: np.ndarray
) -> np.ndarray:
    """VERIFY_FEATURES for aligned pairs (claim text, check text, the re-rankers' probability,
    the claim-embedding cosine, the character n-gram cosine)."""
    rows = [
        pair_features(claim_parts(claim), claim_parts(check), z, e, c)
        for claim, check, z, e, c in zip(
            claims, checks, reranker_logits(reranker).tolist(), np.asarray(embedding).tolist(), np.asarray(chars).tolist(), strict=True
        )
    ]
    return np.asarray(rows, np.float64).reshape(len(rows), len(VERIFY_FEATURES))
