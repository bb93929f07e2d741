"""The "claim reviewed": the claim as the desk checked it, in under 75 characters (Google's
ClaimReview asks for that). A verdict stores the reviewer's wording (Verdict.claim_reviewed);
this module writes the default the verdict form starts from. Pure: no database.

The default is the claim as said: the sentence tidied (whitespace collapsed), the quoted
words alone where everything outside the quotation marks only says who spoke (the
attribution lead-in "Lyons added," or tail ", he said." dropped, also when the quotation
runs on past the sentence and only its opening mark is there), enclosing or unbalanced
quotation marks dropped. A sentence too long is
shortened at clause boundaries (a comma, a semicolon, a colon, a dash, a parenthesis) to the
clauses that carry its figures, so the number a fact-check is about is never lost, and no
cut ever falls inside a figure ("nearly 1,500 people", "$1.13bn", "3.5 million"): the
figures are the pipeline's quantities plus every run of digits with its sign and unit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# Google: "Try to keep this less than 75 characters to minimize wrapping".
CLAIM_REVIEWED_MAX_CHARS = 74
ELLIPSIS = "…"

_QUOTE_PAIRS = (("“", "”"), ('"', '"'), ("‘", "’"), ("«", "»"))
_QUOTE_MARKS = "“”\"‘’«»"
# A figure: digits with their separators, a currency sign before, a unit or scale after.
_FIGURE = re.compile(
    r"[£$€¥]?\d[\d,.]*\d?(?:\s?(?:%|per ?cent\b|percent\b|bn\b|m\b|k\b|million\b|billion\b|trillion\b|thousand\b|hundred\b))?",
    re.IGNORECASE,
)
_APOSTROPHE = re.compile(r"(?<=\w)’(?=\w)")
_KEPT_APOSTROPHE = "\ue000"  # a private-use character, never in a sentence
# A verb of speech: what makes the words outside a quotation its attribution.
_SPEECH = re.compile(
    r"\b(?:said|says|say|added|adds|told|tells|asked|asks|wrote|writes|insisted|insists|claimed|claims|declared|stated|states"
    r"|warned|warns|argued|argues|noted|notes|explained|explains|continued|replied|tweeted|posted|according to)\b",
    re.IGNORECASE,
)
_ATTRIBUTION_MAX_WORDS = 12
# Where a clause ends: the punctuation and the space after it are dropped at a cut.
_CLAUSE_END = re.compile(r"[,;:]\s+|\s+[—–-]\s+|\s+(?=\()")


def claim_reviewed_default(sentence: str, *, attribution: str = "", quantities: Iterable[str] = (), limit: int = CLAIM_REVIEWED_MAX_CHARS) -> str:
    """The claim reviewed a verdict starts from: the tidied sentence, shortened when longer
    than `limit` (see the module's docstring). `quantities`: the figures' texts the pipeline
    found in the sentence (Claim.quantities' "text")."""
    text = tidy_sentence(sentence, attribution=attribution)
    if len(text) <= limit:
        return text
    figures = _figure_spans(text, quantities)
    return _clause_window(text, figures, limit) or _word_window(text, figures, limit)


def tidy_sentence(sentence: str, *, attribution: str = "") -> str:
    # An apostrophe is no quotation mark ("We’re", "you’ve"): kept aside while marks are
    # matched, counted and dropped.
    text = _APOSTROPHE.sub(_KEPT_APOSTROPHE, " ".join(sentence.split()))
    if said := _said_quotation(text):
        text = said
    elif attribution == "direct_quote":
        quoted = _quoted_words(text)
        if quoted and len(quoted) >= len(text) / 2:
            text = quoted
    text = _without_enclosing_quotes(text)
    if any(text.count(opening) != text.count(closing) for opening, closing in _QUOTE_PAIRS if opening != closing) or text.count('"') % 2:
        # A quotation opened or closed outside the sentence: the lone marks mean nothing here.
        text = " ".join(text.translate({ord(mark): None for mark in _QUOTE_MARKS}).split())
    return text.strip().rstrip(" ,;:").replace(_KEPT_APOSTROPHE, "’")


def _is_attribution(part: str) -> bool:
    """A lead-in or tail that only says who spoke ("Lyons added,", ", he told reporters.")."""
    words = part.split()
    return bool(words) and len(words) <= _ATTRIBUTION_MAX_WORDS and not any(mark in part for mark in _QUOTE_MARKS) and bool(_SPEECH.search(part))


def _is_lead_in(part: str) -> bool:
    """An attribution before a quotation, and no more: not a sentence of its own ending
    before the quotation opens, nor reported speech ("Qwest said MCI had rejected a deal
    worth $8bn. “We would...”": its own claim, which dropping it would lose)."""
    stripped = part.strip()
    return _is_attribution(part) and not stripped.endswith((".", "!", "?")) and " that " not in f" {stripped} "


def _said_quotation(text: str) -> str:
    """The words quoted, when everything outside the quotation marks is an attribution. The
    sentence splitter often leaves one mark of a quotation that runs on into the next sentence
    (`Lyons added, “Sanctuary does not mean safer streets.`): the words after a lone opening
    mark, or before a lone closing one, are the quotation then. "" when there is none."""
    for opening, closing in _QUOTE_PAIRS:
        start = text.find(opening)
        if start < 0:
            end = text.rfind(closing)
            if end > 0 and closing != opening and _is_attribution(text[end + 1 :]) and len(text[:end].split()) >= 3:
                return text[:end].strip().rstrip(",")
            continue
        end = text.find(closing, start + 1)
        lead, quoted, tail = text[:start], text[start + 1 : end if end >= 0 else len(text)], text[end + 1 :] if end >= 0 else ""
        if len(quoted.split()) < 3 or not (lead.strip() or tail.strip()):
            continue
        if (not lead.strip() or _is_lead_in(lead)) and (not tail.strip() or _is_attribution(tail)):
            return quoted.strip().rstrip(",")
    return ""


def _quoted_words(text: str) -> str:
    for opening, closing in _QUOTE_PAIRS:
        match = re.search(re.escape(opening) + r"(.+?)" + re.escape(closing), text)
        if match and len(match.group(1).split()) >= 3:
            return match.group(1).strip().rstrip(",")
    return ""


def _without_enclosing_quotes(text: str) -> str:
    for opening, closing in _QUOTE_PAIRS:
        inner = text[1:-1]
        if len(text) > 2 and text[0] == opening and text[-1] == closing and opening not in inner and closing not in inner:
            return inner.strip()
    return text


def _figure_spans(text: str, quantities: Iterable[str]) -> list[tuple[int, int]]:
    spans = [match.span() for match in _FIGURE.finditer(text)]
    for quantity in quantities:
        quantity = " ".join(quantity.split())
        if quantity:
            spans += [(match.start(), match.end()) for match in re.finditer(re.escape(quantity), text)]
    return spans


@dataclass(frozen=True)
class _Clause:
    start: int
    end: int  # before the punctuation that ends it


def _clauses(text: str) -> list[_Clause]:
    clauses, start = [], 0
    for match in _CLAUSE_END.finditer(text):
        if match.start() > start:
            clauses.append(_Clause(start, match.start()))
        start = match.end()
    if start < len(text):
        clauses.append(_Clause(start, len(text)))
    return clauses


def _shown(text: str, start: int, end: int) -> str:
    """text[start:end] with an ellipsis on each side where the sentence goes on."""
    body = text[start:end].strip().rstrip(" ,;:—–-")
    return (ELLIPSIS if start > 0 else "") + body + (ELLIPSIS if end < len(text) else "")


def _clause_window(text: str, figures: list[tuple[int, int]], limit: int) -> str:
    """The run of whole clauses that fits and keeps the most figures (then starts the
    sentence, then is the longest); "" when none that holds a figure fits."""
    clauses = _clauses(text)
    best: tuple[tuple[int, bool, int], str] | None = None
    for first in range(len(clauses)):
        for last in range(first, len(clauses)):
            start, end = clauses[first].start, clauses[last].end
            shown = _shown(text, start, end)
            if len(shown) > limit:
                break
            kept = sum(1 for a, b in figures if start <= a and b <= end)
            if (figures and not kept) or (not figures and start > 0):
                # Only the clauses that hold a figure stand for a claim about one; without
                # figures, the sentence's opening (its subject and verb) does.
                continue
            rank = (kept, start == 0, len(shown))
            if best is None or rank > best[0]:
                best = (rank, shown)
    return best[1] if best is not None else ""


def _word_window(text: str, figures: list[tuple[int, int]], limit: int) -> str:
    """A run of whole words that fits, cut only between words and never inside a figure:
    from the start, or (when the first figure lies beyond that) ending on the first figure."""

    def outside_figures(at: int) -> bool:
        return not any(a < at < b for a, b in figures)

    spaces = [match.start() for match in re.finditer(r"\s", text) if outside_figures(match.start())]
    ends = [at for at in spaces if len(_shown(text, 0, at)) <= limit]
    first_figure = min(figures, default=None)
    if first_figure is None or (ends and ends[-1] >= first_figure[1]):
        end = ends[-1] if ends else limit - 1
        return _shown(text, 0, end)
    end = next((at for at in spaces if at >= first_figure[1]), len(text))
    starts = [at + 1 for at in spaces if at < first_figure[0] and len(_shown(text, at + 1, end)) <= limit]
    if starts:
        return _shown(text, starts[0], end)
    return _shown(text, 0, ends[-1] if ends else limit - 1)
