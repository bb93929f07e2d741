"""Sentence segmentation for English news copy, with exact character offsets.

One compiled regex finds every candidate boundary (a run of terminators, any closing
quotes or brackets, then whitespace); a few cheap string checks decide whether to split.
Offsets index the caller's original string, so claims can be highlighted in place.

Heuristics, in the order they are applied at a candidate boundary:

1. Paragraphs (separated by a blank line: ``\\n\\n``, ``\\r\\n\\r\\n``, whitespace-only lines,
   or U+2029) always end a sentence, even without a terminator (headlines, datelines).
   Paragraphs are numbered from 0, counting only those that contain text.
   A single newline inside a paragraph is ordinary whitespace, except before a list item
   (a line starting with ``-``, ``*``, ``•``, ``▪`` or ``–`` and a space), which ends the
   sentence before it without starting a new paragraph.
2. A terminator only counts when whitespace follows it (after any closing quotes or
   brackets), so ``1,500``, ``3.5%``, ``$2.4bn``, ``10.30am`` and ``bbc.co.uk`` never split.
   Closing quotes/brackets after the terminator stay with the sentence they close; opening
   quotes always begin the next sentence, and a quotation spanning sentences is split at its
   inner boundaries: ``said, “We won. They lost.”`` gives ``said, “We won.`` and ``They lost.”``.
3. Do not split before a character that cannot open a sentence: a closing quote or bracket
   set off by a space (``Kiss... ). Shane``), the rest of a spaced ellipsis
   (``match . . . momentum``), or a straight ``"`` with space on both sides.
   If the next word (past any opening quotes/brackets) starts lowercase, do not split:
   ``“Why?” he asked``, ``because… there``, ``U.S. and``. A lowercase-then-uppercase word
   (``iPod``, ``eBay``) is treated as capitalised, since such brands do start sentences.
4. ``?``, ``!``, ``?!``, ellipses (``…``, ``...``) and any other multi-character terminator
   split before a capitalised word, a digit or other punctuation.
5. A single ``.`` looks at the word in front of it:
   - titles and mid-sentence abbreviations (``Mr.``, ``Dr.``, ``Gov.``, ``Sen.``, ``Gen.``,
     ``Lt.``, ``vs.``, ``e.g.``, ``i.e.`` ...) never end a sentence;
   - ``No.``, ``Vol.``, ``pp.``, ``Fig.`` ... do not split before a digit (``No. 10``) and
     otherwise behave as ordinary words (``“No. I won’t.”``);
   - abbreviations that often end a sentence (``Inc.``, ``Corp.``, ``Ltd.``, ``Jr.``,
     ``St.``, ``etc.``, months ``Jan.``..``Dec.``), dotted initialisms (``U.S.``, ``D.C.``,
     ``p.m.``) and single capital initials (``J. K. Rowling``) split only when the next word
     is a common sentence starter (a determiner, pronoun, conjunction, preposition or
     discourse adverb such as The/He/She/It/But/And/In/However, or a title such as Mr):
     ``Washington, D.C. The next day`` splits, ``U.S. Attorney`` and ``Jan. 5`` do not;
   - any other word ends the sentence.
6. Text after the last boundary of a paragraph is a sentence even without a terminator.

Known trade-offs: ``“Why?” Smith asked.`` splits before ``Smith`` (a capitalised speech tag
cannot be told from a new sentence cheaply); an initial at a true sentence end followed by a
non-starter (``vitamin C. Doctors``) does not split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Sentence", "split_sentences"]


@dataclass(frozen=True, slots=True)
class Sentence:
    """``text[start:end]`` is the sentence, without surrounding whitespace (``end`` exclusive).

    ``paragraph`` is 0-based and counts only paragraphs that contain text.
    """

    start: int
    end: int
    paragraph: int


_OPENER_CHARS = "“‘\"'([{«"
_OPENERS = frozenset(_OPENER_CHARS)
# Characters that cannot begin a sentence: a spaced closer (``Kiss... ). Shane``) or the rest
# of a spaced ellipsis (``match . . . momentum``). The typographic ’ is left out because it
# also opens elisions such as ’90s.
_NO_SENTENCE_START = frozenset("”)]}».?!…‽")

# Group "paragraph": a blank line (``\n\n``, ``\r\n\r\n``, a lone ``\r`` as on old Macs,
# whitespace-only lines) or U+2029. Otherwise a line break before a list item
# ("\n - Best sound design"): items rarely end in a full stop, and running them together
# would make one "sentence" of a whole list. The pattern opens with a character class
# because that lets ``re`` skip straight to line breaks; a leading group makes it try every
# position, which cost more than finding the sentence boundaries.
_BLOCK_BREAK = re.compile(
    r"[\n\r\u2029](?:(?<=\r)\n)?+"
    r"(?:(?P<paragraph>(?<=\u2029)|[^\S\r\n\u2029]*+(?:\r\n?|\n|\u2029))|(?=[^\S\r\n]*+[-*•▪–][^\S\r\n]))"
)

# Group 1: the terminator run; group 2: the whitespace after any closers. The lookbehind
# lets a run be matched only from its first character and the possessive quantifiers stop
# backtracking, so a long run of dots without whitespace costs linear, not quadratic, time.
_CANDIDATE = re.compile(r"([.?!…‽](?<![.?!…‽].)[.?!…‽]*+)[”’\"')\]}»]*+(\s+)")

_NEXT_WORD = re.compile(r"[“‘\"'(\[{«]*([^\W\d_]+)(.?)")
_DOTTED = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]")

# The longest abbreviation key is short; looking further back only costs time.
_LOOKBEHIND = 16


def _exact(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _cased(words: str) -> frozenset[str]:
    """Title-case and upper-case spellings: ``Inc``/``INC`` match, the ordinary word ``co`` does not."""
    return frozenset(form for word in words.split() for form in (word, word.upper()))


# Exact spellings: titles in title case only, since upper-case forms collide with acronyms
# (``patients with MS. Final``); the Latin ones also in lower case.
_NEVER_END = _exact(
    "Mr Mrs Ms Mx Messrs Mmes Dr Drs Prof Profs Gov Govs Sen Sens Rep Reps Gen Gens Lt Col Capt "
    "Cmdr Cdr Adm Maj Brig Sgt Cpl Pvt Rev Revd Hon Pres Supt Insp Det Fr Atty Amb "
    "vs Vs v viz cf approx ca e.g E.g E.G i.e I.e I.E"
)

_BEFORE_NUMBER = _cased("No Nos Vol Vols Fig Figs Art Arts Ch Para Nr Tel Ext Op") | _exact(
    "no nos vol vols fig figs p pp ch para nr tel ext op"
)

_MAY_END = _cased(
    "Inc Corp Co Cos Ltd Plc Llc Llp Bros Jr Jnr Sr Snr Esq St Ste Mt Ft Ave Blvd Dept Univ Assn "
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec"
) | _exact("etc al")

_STARTERS = _cased(
    "The A An This That These Those There Their They He She It Its We I You Our My His Her "
    "But And Or So Yet Nor In On At By For From With Without To Into After Before During Since "
    "Until When While Where If As Although Though Because Unless However Meanwhile Moreover "
    "Also Still Then Now Today Yesterday Tomorrow Last Next Earlier Later Other Others Some "
    "Many Most Several All Both Each Every Neither Either Such Not What Why How Who Whom Which "
    "Despite According Under Over Among Instead Nevertheless Indeed Yes Mr Mrs Ms Dr Prof"
)


def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences whose offsets index ``text`` itself.

    ``text[s.start:s.end]`` is the sentence without surrounding whitespace; sentences are in
    order, do not overlap, and together cover every non-whitespace character.
    """
    sentences: list[Sentence] = []
    paragraph = 0
    paragraph_has_text = False
    start = 0
    for brk in _BLOCK_BREAK.finditer(text):
        if _split_block(text, start, brk.start(), paragraph, sentences):
            paragraph_has_text = True
        if paragraph_has_text and brk.lastgroup == "paragraph":
            paragraph += 1
            paragraph_has_text = False
        start = brk.end()
    _split_block(text, start, len(text), paragraph, sentences)
    return sentences


def _split_block(text: str, start: int, end: int, paragraph: int, out: list[Sentence]) -> bool:
    """Append the sentences of ``text[start:end]`` to ``out``; False if it holds no text."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start == end:
        return False
    sentence_start = start
    # ``end`` is non-whitespace, so a candidate's trailing whitespace never reaches it.
    for match in _CANDIDATE.finditer(text, start, end):
        if _is_boundary(text, match, sentence_start, end):
            out.append(Sentence(sentence_start, match.start(2), paragraph))
            sentence_start = match.end()
    out.append(Sentence(sentence_start, end, paragraph))
    return True


def _is_boundary(text: str, match: re.Match[str], sentence_start: int, end: int) -> bool:
    following = match.end()
    first = text[following]
    if first in _NO_SENTENCE_START:
        return False
    if first == '"' and (following + 1 == end or text[following + 1].isspace()):
        # A straight quote with space on both sides closes a quotation (``years... " Hailey``).
        # Counting quotes to tell openers from closers fails on news copy, where a quotation
        # often runs on across merged paragraphs without a closing mark.
        return False
    if first in _OPENERS:
        # Opening quotes belong to the next sentence; what decides is the letter after them.
        probe = following + 1
        while probe < end and text[probe] in _OPENERS:
            probe += 1
        if probe == end:
            return True
        first = text[probe]
        following = probe
    if first.islower() and not (following + 1 < end and text[following + 1].isupper()):
        return False
    term_start, term_end = match.span(1)
    if term_end - term_start > 1 or text[term_start] != ".":
        return True
    return _period_ends_sentence(text, term_start, sentence_start, match.end(), end)


def _period_ends_sentence(text: str, period: int, sentence_start: int, following: int, end: int) -> bool:
    window = text[max(sentence_start, period - _LOOKBEHIND) : period]
    if not window or window[-1].isspace():
        return True
    # Hyphenated compounds ("ex-Gov.") are judged by their last part.
    word = window.split()[-1].lstrip(_OPENER_CHARS).rpartition("-")[2]
    if not word:
        return True
    if word in _NEVER_END:
        return False
    if word in _BEFORE_NUMBER:
        return not _next_is_digit(text, following, end)
    if word in _MAY_END or (len(word) == 1 and word.isupper()) or _DOTTED.fullmatch(word):
        return _next_is_starter(text, following, end)
    return True


def _next_is_digit(text: str, following: int, end: int) -> bool:
    while following < end and text[following] in _OPENERS:
        following += 1
    return following < end and text[following].isdigit()


def _next_is_starter(text: str, following: int, end: int) -> bool:
    match = _NEXT_WORD.match(text, following, end)
    if match is None:
        return False
    word, after = match.groups()
    # "J. A. Smith": a one-letter word followed by a period is another initial, not "A".
    return word in _STARTERS and not (len(word) == 1 and after == ".")
