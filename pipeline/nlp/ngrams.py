"""Word n-grams weighted TF-IDF: the one definition the check-worthiness head and the
contestability model score with and are trained to.

Words of two or more letters or digits, lower-cased, and each pair of neighbouring words;
weighted 1 + ln(count) x idf over the terms of a fixed vocabulary and scaled to unit length,
as scikit-learn's TfidfVectorizer (sublinear_tf, l2, the vocabulary and idf it was fitted
with) transforms a sentence; tests hold the two equal. Scoring stays in plain Python:
importing scikit-learn costs each Spark Python worker about a hundred megabytes and most of a
second of CPU, and a sentence's dozen n-grams are summed as fast in a dict.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping

_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def ngrams(text: str) -> Counter[str]:
    words = _TOKEN.findall(text.lower())
    return Counter([*words, *(f"{first} {second}" for first, second in zip(words, words[1:], strict=False))])


def tfidf(text: str, idf: Mapping[str, float]) -> dict[str, float]:
    """The sentence's n-grams that are in the vocabulary (`idf`'s keys), weighted and at unit length."""
    weighted = {term: (1.0 + math.log(count)) * idf[term] for term, count in ngrams(text).items() if term in idf}
    norm = math.sqrt(sum(value * value for value in weighted.values()))
    return {term: value / norm for term, value in weighted.items()} if norm else {}


def weighted_sum(text: str, idf: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """A linear model's n-gram part for one sentence: its TF-IDF vector dotted with `weights`."""
    return sum(weights.get(term, 0.0) * value for term, value in tfidf(text, idf).items())
