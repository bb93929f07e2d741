"""A first, transparent rule set for candidate claims.

Each rule adds evidence that a sentence states something checkable. The claim-finding
model replaces the score; the rules stay useful as a fallback and as typing hints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|dozen|hundred|thousand|million|billion|half|third|quarter)\b", re.I)
COMPARISON = re.compile(
    r"\b(?:more|less|fewer|higher|lower|safer|dangerous|increas\w*|decreas\w*|ris(?:e|es|ing)|fell|fall(?:ing)?|"
    r"doubl\w*|tripl\w*|record|than|most|least|largest|smallest|worst|best)\b",
    re.I,
)
OFFICIAL_ACTION = re.compile(
    r"\b(?:detain\w*|arrest\w*|deport\w*|filed|sued?|lawsuit|signed|testified|deemed|ruled|withh[e]?ld|"
    r"threaten\w*|prosecut\w*|approved|banned|unconstitutional|executive order)\b",
    re.I,
)
PREDICTION = re.compile(r"\b(?:will|going to|pledged?|promis\w*|vow\w*|plans? to)\b", re.I)
CAUSAL = re.compile(r"\b(?:because|due to|leading to|led to|caus\w*|result(?:ed|s)? in)\b", re.I)
QUOTE = re.compile(r"[“”\"]")
WORD = re.compile(r"\w+")

MIN_WORDS = 5
THRESHOLD = 0.3


@dataclass(frozen=True, slots=True)
class RuleScore:
    score: float
    claim_type: str


def rule_score(sentence: str) -> RuleScore:
    """Score in [0, 1] and the first matching type, by cheap regular expressions."""
    words = len(WORD.findall(sentence))
    if words < MIN_WORDS:
        return RuleScore(0.0, "other")
    score = 0.0
    claim_type = "other"
    for pattern, weight, kind in (
        (NUMBER, 0.4, "numeric"),
        (COMPARISON, 0.3, "comparison"),
        (CAUSAL, 0.25, "causal"),
        (OFFICIAL_ACTION, 0.3, "official_action"),
        (PREDICTION, 0.2, "prediction"),
        (QUOTE, 0.1, "quote"),
    ):
        if pattern.search(sentence):
            score += weight
            if claim_type == "other":
                claim_type = kind
    if words >= 10:
        score += 0.1
    return RuleScore(round(min(score, 1.0), 4), claim_type)


def is_candidate(score: float) -> bool:
    return score >= THRESHOLD
