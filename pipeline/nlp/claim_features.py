"""Sentence features the check-worthiness head reads beside the CNN's pooled features and
the word n-grams: cues a fact-checker uses that debate transcripts alone teach poorly
(news boilerplate, questions, opinion and first-person talk, reported speech, numbers,
the claim typer's verdict, and the subject area).

Pure functions of one sentence, so training, the command line and the Spark job compute
the same values. The order of FEATURE_NAMES is part of the model artifact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from pipeline.nlp.claim_types import CLAIM_TYPES, classify_claim
from pipeline.nlp.quantities import Quantity, parse_quantities

# Lines a news page carries that are not the story: bylines, credits, corrections, footers.
BOILERPLATE = re.compile(
    r"""(?ix)
    ^\W*(?:by|reporting\ by|editing\ by|written\ by|additional\ reporting\ by)\s+[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+)*
        (?:\s*[,;|/–-]\s*(?:[A-Z][\w'’.-]*\s*){1,4})?\W*$
    | \bcontributed\ (?:to\ )?(?:this\ )?(?:story|report|reporting|article)\b
    | \b(?:follow|like)\ (?:us|him|her|them|[A-Z]\w+)\ on\ (?:twitter|facebook|instagram|x|threads|bluesky)\b
    | \bsign\ up\b | \bnewsletter\b | \bsubscribe\b
    | ^\W*(?:photo|image|picture|video|graphic)s?\s*(?:credit|by)?\s*[:/]
    | \b(?:getty|reuters|afp|ap|pa)\s+(?:images|photo)\b
    | \bcopyright\b | \ball\ rights\ reserved\b | \bclick\ here\b
    | ^\W*(?:read\ more|related|correction|clarification|update|editor'?s\ note)\s*:
    | \bthis\ (?:story|article)\ (?:has\ been|was)\ (?:updated|corrected)\b | \ban\ earlier\ version\ of\ this\b
    | \b(?:email|e-mail)\ (?:us|the\ author)\b | ^\W*share\ (?:this|on)\b | ^\W*advertisement\W*$
    | \bcan\ be\ reached\ at\b
    """
)
PRONOUN_SUBJECT = re.compile(r"^\W*(?:it|this|that|these|those|they|he|she|we|i|you|such)\b(?!\s+(?:is|was)\s+(?:not\s+)?(?:the\s+)?first\b)", re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|we|we're|we've|my|our|us|me)\b", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|your|you're)\b", re.I)
_MODAL = re.compile(r"\b(?:will|would|could|should|might|may|must|going to|can)\b|['’]ll\b", re.I)
_OPINION = re.compile(
    r"\b(?:think|believe|feel|hope|wish|want|great|wonderful|terrible|awful|disappointed|delighted|proud|honou?r(?:ed)?"
    r"|love|fantastic|brilliant|amazing|happy|sad|sorry|excited|confident|pleased|thrilled|shame|disgrace|outrageous"
    r"|ridiculous|frankly|clearly|obviously|absolutely|important|deserve)\b",
    re.I,
)
_REPORTED = re.compile(
    r"\b(?:said|says|say|told|claimed|claims|according to|stated|added|insisted|argued|warned|announced|revealed"
    r"|reported|estimated|showed|shows|found)\b",
    re.I,
)
_DIGIT = re.compile(r"\d")
_CAPITALISED = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+")
_WORD = re.compile(r"\w+")
_QUESTION_END = re.compile(r"\?\W*$")

# Subject areas: sport, entertainment, company news and technology are where news is
# factual but seldom worth a check; public affairs is where it usually is.
SUBJECT_AREAS: dict[str, str] = {
    "sport": r"match|matches|goal|goals|scored|striker|midfielder|coach|league|cup|championship|season|tournament|final"
    r"|semi-final|club|team|squad|player|players|injury|won|defeat|beat|olympic|medal|race|tennis|rugby|football"
    r"|cricket|athletics|marathon|wicket|grand slam",
    "entertainment": r"film|films|movie|album|single|song|singer|band|actor|actress|star|stars|oscar|oscars|award|awards"
    r"|nominated|nomination|box office|chart|charts|festival|director|show|series|episode|tv|music|concert|tour|rock"
    r"|pop|comedy|drama|novel|musical",
    "business": r"profit|profits|revenue|revenues|sales|shares|share price|quarter|quarterly|earnings|analysts|firm"
    r"|firms|company|companies|investors|stock|market|markets|chief executive|ceo|dividend|turnover|merger|takeover"
    r"|deal|customers",
    "technology": r"software|computer|computers|internet|online|website|users|mobile|phone|phones|broadband|games"
    r"|gaming|console|chip|chips|device|devices|microsoft|apple|google|sony|nintendo|download|downloads|digital"
    r"|technology|net",
    "public_affairs": r"government|minister|ministers|mp|mps|parliament|election|elections|vote|voters|poll|polls|party"
    r"|labour|conservative|conservatives|tory|tories|lib dem|liberal democrats|tax|taxes|taxpayer|budget|spending"
    r"|deficit|economy|economic|unemployment|jobs|inflation|interest rates|pensions|nhs|hospital|hospitals|health"
    r"|crime|police|prison|court|judge|law|laws|legislation|immigration|immigrants|asylum|border|migrants|terror"
    r"|terrorism|war|troops|army|military|school|schools|education|students|university|climate|emissions"
    r"|pollution|eu|un|president|senator|congress|council|councils|public|welfare|benefits|poverty|prime minister"
    r"|chancellor|secretary|home office|treasury|downing street|white house",
}
# The same lists as sets of words and of two-word phrases: counting look-ups is far cheaper
# than scanning a sentence with a long alternation per area.
_SUBJECT_WORDS = {name: frozenset(w for w in words.split("|") if " " not in w) for name, words in SUBJECT_AREAS.items()}
_SUBJECT_PHRASES = {name: frozenset(w for w in words.split("|") if " " in w) for name, words in SUBJECT_AREAS.items()}


def subject_area_counts(words: Sequence[str]) -> list[int]:
    """Occurrences of each area's words and two-word phrases among lower-cased words."""
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    return [
        sum(word in _SUBJECT_WORDS[name] for word in words) + sum(pair in _SUBJECT_PHRASES[name] for pair in pairs)
        for name in SUBJECT_AREAS
    ]

_BASE = (
    "question", "boilerplate", "pronoun_subject", "first_person", "second_person", "modal", "opinion", "reported",
    "digit", "quantities", "quotation_mark", "short", "log_length", "capitalised_share",
)
FEATURE_NAMES: tuple[str, ...] = (
    _BASE
    + tuple(f"type:{name}" for name in CLAIM_TYPES)
    + tuple(f"primary:{name}" for name in CLAIM_TYPES)
    + tuple(f"area:{name}" for name in SUBJECT_AREAS)
)


def is_question(sentence: str) -> bool:
    return bool(_QUESTION_END.search(sentence.rstrip()))


# "Carr asked whether the government may surge agents to Boston": it reports a question and
# asserts nothing but the asking.
_REPORTED_QUESTION = re.compile(
    r"^[^,;:“\"]{0,80}?\b(?:asked|asks|wondered|wonders|questioned)\s+(?:\w+\s+)?(?:whether|if|why|how|what|when|who|where)\b", re.I
)


def is_reported_question(sentence: str) -> bool:
    return bool(_REPORTED_QUESTION.search(sentence))


# A sentence can only be furniture if it holds one of these words (or starts with a byline's
# first word): a set look-up spares almost every sentence the long pattern above.
_BOILERPLATE_CUES = frozenset(
    "contributed follow like sign newsletter subscribe getty reuters afp ap pa copyright rights click story article "
    "earlier email e-mail reached photo photos image images picture pictures video videos graphic graphics read related "
    "correction clarification update editor editor's editors share advertisement".split()
)
_BYLINE_STARTS = frozenset({"by", "reporting", "editing", "written", "additional"})
_LOWER_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")


def _lower_words(sentence: str) -> list[str]:
    return _LOWER_WORD.findall(sentence.lower())


def is_boilerplate(sentence: str, words: Sequence[str] | None = None) -> bool:
    words = _lower_words(sentence) if words is None else words
    if not words or (words[0] not in _BYLINE_STARTS and _BOILERPLATE_CUES.isdisjoint(words)):
        return False
    return bool(BOILERPLATE.search(sentence))


def has_pronoun_subject(sentence: str) -> bool:
    return bool(PRONOUN_SUBJECT.search(sentence))


# Subjects a desk checks trend and cause claims on, numbers or not ("Sanctuary does not mean
# safer streets.", "cities are becoming more dangerous due to 'sanctuary' policies"): crime and
# safety, immigration, the public finances, health services.
CONTESTED_SUBJECTS = re.compile(
    r"\b(?:crime|crimes|criminal|criminals|violent|violence|murders?|homicides?|shootings?|dangerous|safer|safety|unsafe"
    r"|gangs?|immigration|immigrants?|migrants?|asylum|deport\w*|border|sanctuary|illegal aliens?|refugees?|tax|taxes"
    r"|unemployment|inflation|wages|deficit|poverty|nhs|hospitals?|patients|waiting lists?|taxpayers?|public spending)\b",
    re.I,
)
CONTESTED_TYPES = frozenset({"comparison", "causal"})
# Fewer words than this after a pronoun subject: a fragment whose claim lives in another sentence.
FRAGMENT_WORDS = 6


def is_contested_assertion(sentence: str, claim_type: str) -> bool:
    """A trend, comparison or causal assertion on a contested public subject, not in the
    first person: checkable against the statistics whatever the debate-trained model thinks
    (also when reported as a belief: "Americans who feel cities are becoming more dangerous
    due to 'sanctuary' policies" is the claim a desk checks)."""
    return claim_type in CONTESTED_TYPES and bool(CONTESTED_SUBJECTS.search(sentence)) and not _FIRST_PERSON.search(sentence)


def is_public_matter(sentence: str) -> bool:
    public_affairs = list(SUBJECT_AREAS).index("public_affairs")
    return subject_area_counts(_lower_words(sentence))[public_affairs] > 0 or bool(CONTESTED_SUBJECTS.search(sentence))


def is_pronoun_fragment(sentence: str) -> bool:
    """"It did." / "They were there too.": a pronoun subject and too few words to say anything alone."""
    return has_pronoun_subject(sentence) and len(_WORD.findall(sentence)) < FRAGMENT_WORDS


def _capped(count: int, cap: int = 3) -> float:
    return min(cap, count) / cap


def sentence_features(sentence: str, quantities: Sequence[Quantity] | None = None) -> np.ndarray:
    words = _WORD.findall(sentence)
    count = max(1, len(words))
    lower = _lower_words(sentence)
    parsed = parse_quantities(sentence) if quantities is None else quantities
    primary, types = classify_claim(sentence, quantities=list(parsed))
    values = [
        is_question(sentence),
        is_boilerplate(sentence, lower),
        has_pronoun_subject(sentence),
        _capped(len(_FIRST_PERSON.findall(sentence))),
        _capped(len(_SECOND_PERSON.findall(sentence))),
        _capped(len(_MODAL.findall(sentence))),
        _capped(len(_OPINION.findall(sentence))),
        bool(_REPORTED.search(sentence)),
        bool(_DIGIT.search(sentence)),
        _capped(len(parsed)),
        any(mark in sentence for mark in "\"“”"),
        count < 6,
        float(np.log1p(count) / 4),
        len(_CAPITALISED.findall(sentence)) / count,
    ]
    values += [name in types for name in CLAIM_TYPES]
    values += [name == primary for name in CLAIM_TYPES]
    values += [_capped(count) for count in subject_area_counts(lower)]
    return np.asarray(values, np.float64)


def feature_matrix(sentences: Sequence[str], quantities: Sequence[Sequence[Quantity]] | None = None) -> np.ndarray:
    """One row per sentence; `quantities`: each sentence's parsed quantities, when the caller has them."""
    if not sentences:
        return np.zeros((0, len(FEATURE_NAMES)))
    if quantities is None:
        return np.vstack([sentence_features(sentence) for sentence in sentences])
    return np.vstack([sentence_features(sentence, parsed) for sentence, parsed in zip(sentences, quantities, strict=True)])
