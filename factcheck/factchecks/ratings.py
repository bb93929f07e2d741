"""Publishers' ratings on our 1 (false) to 5 (true) scale, and back to a verdict rating. Pure.

The scale is the one our ClaimReview exports use (factcheck.reports.claimreview.RATING_VALUE).
A rating that says nothing about truth (satire, outdated, unproven, "research in progress")
maps to None: a guess would put a wrong number in front of a reviewer.
"""

from __future__ import annotations

import math
import re
from typing import SupportsFloat, SupportsIndex

from factcheck.claims.models import Verdict
from factcheck.factchecks.models import SCALE_MAX, SCALE_MIN
from factcheck.reports.claimreview import RATING_VALUE

R = Verdict.Rating

# Lower-cased, with hyphens and underscores read as spaces. PolitiFact (LIAR's labels, and
# its Truth-O-Meter words), Snopes and the common ClaimReview words of other desks.
WORDS_TO_SCALE: dict[str, int] = {
    "pants fire": 1,
    "pants on fire": 1,
    "false": 1,
    "fake": 1,
    "incorrect": 1,
    "wrong": 1,
    "scam": 1,
    "misattributed": 1,
    "fabricated": 1,
    "four pinocchios": 1,
    "barely true": 2,
    "mostly false": 2,
    "misleading": 2,
    "miscaptioned": 2,
    "exaggerated": 2,
    "three pinocchios": 2,
    "half true": 3,
    "mixture": 3,
    "mixed": 3,
    "partly true": 3,
    "partly false": 3,
    "half truth": 3,
    "two pinocchios": 3,
    "mostly true": 4,
    "mostly correct": 4,
    "one pinocchio": 4,
    "true": 5,
    "correct": 5,
    "accurate": 5,
    "correct attribution": 5,
    "geppetto checkmark": 5,
}
# Our own labels too, so a feed of ours (or a desk's on the same words) maps exactly.
WORDS_TO_SCALE.update({str(label).lower(): RATING_VALUE[value] for value, label in R.choices if value != R.UNVERIFIABLE})


def normalise_words(text: str) -> str:
    return " ".join(re.sub(r"[-_]+", " ", text).lower().replace("!", "").split())


def scale_from_words(text: str) -> int | None:
    """A publisher's rating words on our scale, or None when they do not say how true."""
    return WORDS_TO_SCALE.get(normalise_words(text))


def scale_from_numbers(value: object, best: object, worst: object) -> int | None:
    """A numeric ClaimReview rating (ratingValue within worstRating..bestRating) on our scale."""
    numbers = []
    for item in (value, best, worst):
        # What float() takes from a parsed record (JSON or CSV); anything else is no number.
        if isinstance(item, bool) or not isinstance(item, str | SupportsFloat | SupportsIndex):
            return None
        try:
            numbers.append(float(item))
        except (TypeError, ValueError):
            return None
    value_f, best_f, worst_f = numbers
    if not all(math.isfinite(number) for number in numbers):
        return None  # 1e999 and "inf" parse as infinity, and NaN compares false both ways
    if not (worst_f < best_f and worst_f <= value_f <= best_f):
        return None
    position = (value_f - worst_f) / (best_f - worst_f)
    return SCALE_MIN + round(position * (SCALE_MAX - SCALE_MIN))


# Our scale back to the desk's verdict ratings, for a verdict started from an earlier
# fact-check: the reviewer then edits it. Step 2 is "mostly false" unless the words say misleading.
SCALE_TO_VERDICT: dict[int, str] = {1: R.FALSE, 2: R.MOSTLY_FALSE, 3: R.HALF_TRUE, 4: R.MOSTLY_TRUE, 5: R.TRUE}
_VERDICT_BY_WORDS = {str(label).lower(): value for value, label in R.choices}


def verdict_rating_for(*, rating_text: str, rating_value: int | None) -> str | None:
    """The verdict rating a reviewer starts from, or None (they choose)."""
    words = normalise_words(rating_text)
    if words in _VERDICT_BY_WORDS:
        return _VERDICT_BY_WORDS[words]
    if words in {"misleading", "miscaptioned"}:
        return R.MISLEADING
    if words in {"unproven", "unverifiable", "unsupported"}:
        return R.UNVERIFIABLE
    return SCALE_TO_VERDICT.get(rating_value) if rating_value is not None else None
