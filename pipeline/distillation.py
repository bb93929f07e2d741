"""Transfer sentences for distilling the check-worthiness teacher into the fast student.

The teacher (all-MiniLM-L6-v2 fine-tuned on CT24 train+dev, k-fold) labels three kinds of
sentences with soft logits; the student learns from those logits as well as the hard labels:

* the CT24 train+dev sentences themselves (out-of-fold logits: each sentence is scored by
  the fold model that did not train on it);
* augmented copies of them (Tang et al. 2019, "Distilling task-specific knowledge from BERT
  into simple neural networks"): word deletion, word replacement from the corpus unigram
  distribution, span cropping; each copy is scored by the same out-of-fold model as its source;
* unlabelled BBC News sentences (../shared/data/bbc_news), scored by the mean of the fold models.

Everything here is deterministic (fixed seeds, no hashing of Python objects), so
`train_checkworthiness` regenerates exactly the sentences the committed logits were made for;
logits are matched to sentences by a SHA-1 prefix of the text, never by position.
Dev-test is never read here.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

FOLDS = 5
FOLD_SEED = 0
AUGMENT_SEED = 1
AUGMENT_COPIES = 4
BBC_MIN_WORDS = 4
BBC_MAX_WORDS = 80


def fold_assignment(labels: np.ndarray, folds: int = FOLDS, seed: int = FOLD_SEED) -> np.ndarray:
    """Stratified fold number per row: each class shuffled, then dealt round-robin."""
    rng = np.random.default_rng(seed)
    assignment = np.empty(len(labels), np.int64)
    for value in np.unique(labels):
        rows = np.where(labels == value)[0]
        assignment[rng.permutation(rows)] = np.arange(len(rows)) % folds
    return assignment


def augment(texts: Sequence[str], copies: int = AUGMENT_COPIES, seed: int = AUGMENT_SEED) -> tuple[list[str], np.ndarray]:
    """Augmented copies and the index of the source sentence of each; duplicates dropped."""
    rng = random.Random(seed)
    unigrams = [word for text in texts for word in text.split()]
    seen = set(texts)
    out: list[str] = []
    source: list[int] = []
    for index, text in enumerate(texts):
        words = text.split()
        if len(words) < 4:
            continue
        for copy in range(copies):
            kind = copy % 4
            if kind == 0:  # word deletion
                new = [w for w in words if rng.random() >= 0.15] or words[:1]
            elif kind == 1:  # word replacement from the unigram distribution
                new = [rng.choice(unigrams) if rng.random() < 0.1 else w for w in words]
            elif kind == 2:  # span crop keeping 50-90% of the words
                keep = max(3, int(len(words) * rng.uniform(0.5, 0.9)))
                start = rng.randrange(0, len(words) - keep + 1)
                new = words[start : start + keep]
            else:  # crop then delete
                keep = max(3, int(len(words) * rng.uniform(0.6, 0.95)))
                start = rng.randrange(0, len(words) - keep + 1)
                new = [w for w in words[start : start + keep] if rng.random() >= 0.1] or words[:1]
            sentence = " ".join(new)
            if sentence not in seen:
                seen.add(sentence)
                out.append(sentence)
                source.append(index)
    return out, np.asarray(source, np.int64)


def bbc_sentences(path: Path, exclude: set[str]) -> list[str]:
    """De-duplicated sentences of the BBC articles, in file order, 4-80 words."""
    from pipeline.nlp.segment import split_sentences

    seen = set(exclude)
    out = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            text = json.loads(line)["text"]
            for sentence in split_sentences(text):
                value = " ".join(text[sentence.start : sentence.end].split())
                if BBC_MIN_WORDS <= len(value.split()) <= BBC_MAX_WORDS and value not in seen:
                    seen.add(value)
                    out.append(value)
    return out


def text_key(text: str) -> int:
    """64-bit key of a sentence (SHA-1 prefix), stable across processes and machines."""
    return int.from_bytes(hashlib.sha1(text.encode("utf-8")).digest()[:8], "little", signed=True)
