"""Rule-based extraction of quantities (counts, money, percentages, fractions) from a sentence.

Pure stdlib, built to run inside Spark pandas UDFs over millions of sentences: every
regular expression is compiled once at import time and a call does one ``finditer`` scan
plus a handful of anchored look-ups around each hit.

Conventions (documented because downstream code relies on them):

* ``text``/``start``/``end`` cover the hedge words, the number and the counted noun,
  e.g. ``"nearly 1,500 people"``, so the span can be highlighted as the checkable claim.
* ``value`` is the plain number with scale words applied (``"$2.4bn"`` -> ``2.4e9``,
  ``"three dozen"`` -> ``36``, spoken decimals ``"one point three per cent"`` -> ``1.3``).
  Fractions (``"two-thirds"``, ``"a third of"``, ``"half of"``, ``"one in five"``,
  ``"one-fifth"``) carry their ratio (0.667, 0.333, 0.5, 0.2, 0.2; "nine times out of ten" 0.9) with unit ``"fraction"``; a fraction of a period
  ("the first half of 2004", "the second half", "half of the year") is a period, not a
  quantity.
* Vague magnitudes (``"hundreds of"``, ``"dozens of"``, ``"tens of thousands"``) are
  ranges: ``low``/``high`` hold at least two of the unit and below the next magnitude
  ("tens of thousands" 20,000 to under 100,000), ``magnitude`` the words, ``value`` the
  low end and hedge ``"approximately"``.  Every other quantity has ``low``/``high`` None.
* ``unit`` is a normalised unit (``percent``, ``percentage points``, ``USD``, ``GBP``,
  ``EUR``, ``JPY``, ``fraction``) or the head of the counted noun in lower case
  (``people``, ``cities``, ``years``, ``mps``); a hyphenated period or age is its period
  ("a five-year plan", "the 21-year-old", "18 to 30-year-olds": ``year``).  ``noun`` is
  the whole counted noun as written, from its first content word to the head: "three
  other ethnic minority MPs" counts ``"ethnic minority MPs"`` (unit ``mps``), "1,500
  police officers" ``"police officers"``, "900,000 military and civilian staff"
  ``"military and civilian staff"``, "three key seats" ``"key seats"``; leading "such",
  "other", "more" and determiners are not part of it.  ``""`` for money, percentages and
  fractions, and when nothing is counted.
* Hedges: ``approximately`` (nearly, almost, close to, near, about, around, roughly, some,
  an estimated, "or so", vague magnitudes: near the number, not a bound),
  ``approximately-below`` (just under, less/fewer than, under, below),
  ``approximately-above`` (more than, over, at least, upwards of, in excess of, above),
  ``at-most`` (up to, no more than, as many as, "or fewer"), ``at-least`` (no fewer than,
  no less than, a minimum of, "or more", "500-plus").  "at least" maps to
  ``approximately-above`` as the product brief asks.  ``hedge_text`` keeps the words as
  written ("nearly", "more than", "or more") so the number reads back as the article said
  it; "over" after a sum of money ("£4bn over 10 years") spreads it over the period and is
  no hedge.
* Ranges ("between 10 and 20 people", "10-20%", "10 to 20 percent") produce two
  quantities: the lower bound with hedge ``at-least`` and the upper bound with hedge
  ``at-most``; the lower bound inherits unit/scale from the upper one.
  "from 10 to 20" is a change, not a range: both ends stay ``exact``.  So are two
  quantities of different units ("profits jumped 76% to $1.13bn", "fell 3.2% to 1.2
  million"): a change and the level reached, each ``exact`` with its own scale.
* Calendar years ("in 2004", "the 2024 election", "1990s"), dates ("May 12",
  "12 May", "5/12"), times ("3:30", "3 p.m."), ordinals ("22nd") and labels
  ("Section 8", "COVID-19", "No. 1") are excluded, not returned with a special unit.
  A four-digit year-like number is kept only when it counts a plural noun and is not
  preceded by a temporal preposition or determiner ("2004 people" is kept).
* Numbers inside names are not quantities either: after a capitalised word that is not an
  ordinary sentence opener ("Channel 4", "Boeing 747", "Formula 1", "Radio 1's", "Service
  Pack 2"), unless a lower-case plural noun follows ("in London 13 years ago"); a spelled
  number written with a capital inside a sentence ("the Six Nations", "World War Two",
  "Formula One") or opening a multi-word name ("Three Gorges Dam"); a three- or four-digit
  number after "the"/a possessive that counts no plural ("the 717", "the 767 tanker");
  sports scores ("won 1-0", "6-2 6-4", "7-6 (7-4)"); HTML entities ("&#233;").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["MONEY_UNITS", "Quantity", "parse_quantities"]


@dataclass(frozen=True, slots=True)
class Quantity:
    text: str
    start: int
    end: int
    value: float
    unit: str
    hedge: str
    hedge_text: str = ""
    noun: str = ""
    low: float | None = None
    high: float | None = None
    magnitude: str = ""

    def as_dict(self) -> dict:
        return {
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "value": self.value,
            "unit": self.unit,
            "hedge": self.hedge,
            "hedge_text": self.hedge_text,
            "noun": self.noun,
            "low": self.low,
            "high": self.high,
            "magnitude": self.magnitude,
        }


_SMALL: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}
_SCALE: dict[str, float] = {
    "hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
    "k": 1e3, "m": 1e6, "mn": 1e6, "mln": 1e6, "bn": 1e9, "b": 1e9, "tn": 1e12,
    "dozen": 12.0,
}
_DENOM: dict[str, int] = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
    "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6,
    "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9,
    "tenth": 10, "tenths": 10,
}
_VAGUE: dict[str, float] = {
    "dozens": 12.0, "hundreds": 1e2, "thousands": 1e3,
    "millions": 1e6, "billions": 1e9, "trillions": 1e12,
}
_CURRENCY: dict[str, str] = {
    "$": "USD", "us$": "USD", "usd": "USD", "£": "GBP", "gbp": "GBP", "€": "EUR",
    "eur": "EUR", "¥": "JPY", "c$": "CAD", "a$": "AUD", "cad": "CAD", "aud": "AUD",
}
_CURRENCY_CODES = frozenset(("USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CHF", "CNY", "INR", "MXN"))
_UNIT_ALIASES: dict[str, str] = {
    "dollars": "USD", "dollar": "USD", "bucks": "USD", "euros": "EUR", "euro": "EUR",
    "percent": "percent", "pct": "percent",
}
# After a vague magnitude "pounds" is money ("millions of pounds"), not weight.
_VAGUE_UNIT_ALIASES: dict[str, str] = {**_UNIT_ALIASES, "pounds": "GBP"}


def _alt(words: Iterable[str]) -> str:
    # Longest first so "nineteen" is tried before "nine".
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


_NUMWORD = rf"(?:{_alt(_SMALL)}|hundred|thousand|million|billion|trillion|dozen)"
# Spoken decimals read digit by digit after "point": "one point three" is 1.3, "two point
# oh five" 2.05.
_DIGIT_WORDS: dict[str, int] = {"zero": 0, "oh": 0, "nought": 0, "naught": 0, **{
    w: v for w, v in _SMALL.items() if v < 10}}
_SPOKEN_DECIMAL = rf"(?:[ \t]+point(?:[ \t]+(?:{_alt(_DIGIT_WORDS)})\b)+)"
_SPELLED = (
    rf"\b(?:zero|nought|naught){_SPOKEN_DECIMAL}|"
    rf"(?:\ba\s+(?=(?:dozen|hundred|thousand|million|billion|trillion)\b))?"
    rf"\b{_NUMWORD}"
    rf"(?:(?:[ \t]+|-|(?:(?<=hundred)|(?<=thousand)|(?<=million)|(?<=billion))[ \t]+and[ \t]+){_NUMWORD})*\b"
    rf"{_SPOKEN_DECIMAL}?"
)
# Digits not glued to letters or other digits: rules out "COVID-19", "5/12", "3:30",
# "22nd", "1990s" and the "25" of a "2024-25" season.
_DIGITS = (
    r"(?<![\w.,/:#])(?<![A-Za-z]-)(?<!\d{4}[-–])"
    r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d/:])(?!,\d)(?!\.\d)"
)
_SMALLWORD = _alt(_SMALL)

_MASTER = re.compile(
    rf"""
    (?P<vague>\b(?:(?:tens|hundreds)\s+of\s+)?(?:dozens|hundreds|thousands|millions|billions|trillions)\b
       |\b(?:several|a\s+few)\s+(?:dozen|hundred|thousand|million|billion)\b)
    |(?P<frac>\b(?P<fnum>a|one|two|three|four|five|six|seven|eight|nine)[\s-]+
        (?:(?P<fden_pl>halves|thirds|quarters|fourths|fifths|sixths|sevenths|eighths|ninths|tenths)\b
          |(?<=-)(?P<fden_hy>half|third|quarter|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\b
          |(?P<fden_sg>third|quarter|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\b(?=\s+of\b|\s*[.,;:!?)”"’]|\s*$))
       |\bhalf\b(?=\s+(?:of|the|its|their|all|his|her|our)\b)
       |\b(?P<inum>{_SMALLWORD}|\d{{1,3}})\s+(?:in|(?:times\s+)?out\s+of)\s+(?P<iden>{_SMALLWORD}|\d{{1,3}})\b(?![\d,.]\d))
    |(?P<cur>US\$|C\$|A\$|[$£€¥])?[ \t]?
     (?P<num>{_DIGITS}|{_SPELLED})
     (?P<andhalf>\s+and\s+a\s+half\b)?
     (?:[ \t]?(?P<scale>thousand|million|billion|trillion|dozen|bn|mn|mln|tn)\b
       |(?(cur)(?P<curscale>[ \t]?(?:[kKmMbB])(?![A-Za-z])))
     )?
     (?P<pct>[ \t]?%|[ \t]+(?:percent|per[ \t]+cent|pct\.?)\b(?P<pp>[ \t]+points?|[ \t]+percentage[ \t]+points?)?
       |[ \t]+percentage[ \t]+points?\b)?
     (?P<plus>-plus\b|\+)?
     (?P<hyph>-(?P<hunit>[a-z]+(?:-[a-z]+)*))?
    """,
    re.IGNORECASE | re.VERBOSE,
)

_HEDGE_BEFORE = re.compile(
    r"""(?<!\w)(?P<h>
        just\s+under|just\s+shy\s+of|shy\s+of|close\s+to|nearly|almost|not\s+quite
       |less\s+than|fewer\s+than|under|below
       |no\s+more\s+than|no\s+fewer\s+than|no\s+less\s+than|not\s+more\s+than|not\s+less\s+than
       |more\s+than|greater\s+than|upwards\s+of|upward\s+of|in\s+excess\s+of|just\s+over|well\s+over|over|above|exceeding
       |at\s+least|at\s+most|up\s+to|a\s+maximum\s+of|as\s+many\s+as|as\s+much\s+as|a\s+minimum\s+of
       |about|around|roughly|approximately|approx\.|some|an\s+estimated|estimated|circa|or\s+so|near
       |between|from
    )\s+$""",
    re.IGNORECASE | re.VERBOSE,
)
_HEDGE_MAP: dict[str, str] = {
    "just under": "approximately-below", "just shy of": "approximately-below",
    "shy of": "approximately-below",
    # "nearly 1,500" is close to 1,500, not a bound: it may be a little under or a round-up.
    "close to": "approximately", "nearly": "approximately", "almost": "approximately",
    "not quite": "approximately", "near": "approximately", "less than": "approximately-below",
    "fewer than": "approximately-below", "under": "approximately-below",
    "below": "approximately-below",
    "more than": "approximately-above", "greater than": "approximately-above",
    "upwards of": "approximately-above", "upward of": "approximately-above",
    "in excess of": "approximately-above", "just over": "approximately-above",
    "well over": "approximately-above", "over": "approximately-above",
    "above": "approximately-above", "exceeding": "approximately-above",
    "at least": "approximately-above",
    "no more than": "at-most", "not more than": "at-most", "at most": "at-most",
    "up to": "at-most", "a maximum of": "at-most", "as many as": "at-most",
    "as much as": "at-most",
    "no fewer than": "at-least", "no less than": "at-least", "not less than": "at-least",
    "a minimum of": "at-least",
    "about": "approximately", "around": "approximately", "roughly": "approximately",
    "approximately": "approximately", "approx.": "approximately", "some": "approximately",
    "an estimated": "approximately", "estimated": "approximately",
    "circa": "approximately",
}
_WS = re.compile(r"\s+")
_HEDGE_AFTER = re.compile(r"[ \t]+or[ \t]+(?P<h>more|so|fewer|less|above|below|greater)\b", re.IGNORECASE)
_HEDGE_AFTER_MAP: dict[str, str] = {
    "more": "at-least", "above": "at-least", "greater": "at-least", "so": "approximately",
    "fewer": "at-most", "less": "at-most", "below": "at-most",
}
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*)")
_OF_AFTER = re.compile(r"[ \t]+of\b")
_MONTH_BEFORE = re.compile(
    r"\b(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?[ \t]+(?:the[ \t]+)?$"
)
_MONTH_AFTER = re.compile(
    r"(?:[ \t]+of)?[ \t]+(?:Jan(?:uary)?|Feb(?:ruary)?|March|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b"
)
_TIME_AFTER = re.compile(r"[ \t]*(?:a\.m\.|p\.m\.|am\b|pm\b|o['’]clock)", re.IGNORECASE)
_LABEL_BEFORE = re.compile(
    r"(?<!['’])\b(?:No|Nos|Section|Sec|Title|Chapter|Article|Art|Route|Page|pp?|Room|Highway|Interstate"
    r"|Rule|Form|Part|Amendment|Phase|Level|Stage|Category|Class|Item|Question|Prop"
    r"|Proposition|Measure|Precinct|District|Ward|Unit|Flight|Version|Bill|H\.R|S|Apt"
    r"|Suite|Vol|Volume|Issue|Episode|Season|Act|Figure|Table|Exhibit|Docket)\.?[ \t]+$",
    re.IGNORECASE,
)
_YEARISH = re.compile(r"(?:1[6-9]|20)\d\d")
_YEAR_PREV = re.compile(
    r"\b(?:in|since|by|from|until|till|through|thru|before|after|during|of|the|early|late"
    r"|mid|around|circa|year|fiscal|spring|summer|autumn|fall|winter|to|between|and|or|than"
    r"|this|that|its|their|his|her|our|'s|’s)[ \t,-]*$|[,\d][ \t]*$",
    re.IGNORECASE,
)

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SKIP_WORDS = _words(
    "such other more additional new extra separate different similar major large small"
    " big key total further fewer less many another all some those these the its their our"
    " his her your my"
)
# Skipped like the others (never the head, and the phrase ends at one after its head), but
# part of the counted noun when a head follows them: descriptive adjectives say what kind of
# thing is counted ("three key seats" counts "key seats", "five big banks" "big banks"), and
# "less" modifies the word after it ("250 million less fortunate Indians"). A comparative
# straight after a number counts nothing: "two less than they returned", "five more than".
_NOUN_MODIFIERS = _words("major large small big key less")
_STOP_WORDS = _words(
    "a an and or but nor than as at by for from in into on onto to with without within"
    " per via about after before during since until while when where which who whom whose"
    " that this there here then now ago is are was were be been being am has have had do"
    " does did will would shall should can could may might must not no yes it they them"
    " we us you he him she her i me so if because though although also just only still"
    " even again already alone yesterday today tomorrow last next earlier later each every"
    " both either neither said says say told according what how why out up down off over"
    " under against among between through across around behind beyond near percent per"
    " cent lost won got made went came left took gave saw fell rose grew paid spent put set kept held ran met"
    " became began sent brought bought sold thought found felt stood sat died voted remain remained were"
    " thereafter afterwards instead"
)
_IRREGULAR_PLURALS = _words(
    "people men women children feet teeth mice geese criteria cattle livestock troops"
    " deer sheep aircraft offspring"
)
# Collective nouns that are often modifiers ("police officers", "staff members"): used as
# the unit only when no later plural noun follows.
_WEAK_PLURALS = _words("police staff personnel media data crew")
_ONE_PRONOUN_BEFORE = re.compile(
    r"\b(?:no|any|every|some|the|this|that|each|which|loved|only|single|last|first)[ \t]+$",
    re.IGNORECASE,
)


def _is_plural(word: str) -> bool:
    if word in _IRREGULAR_PLURALS:
        return True
    return (
        len(word) > 3
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is", "ous", "'s", "’s"))
    )


def _scan_unit(sentence: str, pos: int, quoted: bool = False, singular: bool = False) -> tuple[str, int, int]:
    """Return (counted noun's head, end offset, start of its noun phrase) after ``pos``;
    ("", pos, pos) when none is found.

    The noun may open a quotation ('1,500 "safety whistleblowers"'); when the number itself
    is quoted (``quoted``: '"several hundred" people') its closing mark is stepped over too.
    After one (``singular``), two lower-case nouns side by side end at the second, the head:
    "one prison suicide" counts "prison suicide" (head "suicide"), unless the first is a unit
    of measure ("one year's"). After any other number a singular noun is the measure of a
    compound modifier and stays the head: "a 24 hour strike", "a three letter word". A
    participle after the number counts nothing written ("the 1.2 million affected").

    Leading "of"/determiners/adjectives ("of the", "such", "other", "more") are skipped,
    then up to four contiguous content words are read and the first plural-looking one is
    the head ("1,500 police officers" -> "officers"); without a plural the first content
    word is used ("one year").  The noun phrase runs from the first content word to the
    head, so the count reads whole: "three other ethnic minority MPs" counts "ethnic
    minority MPs", "250,000 failed asylum seekers" counts "failed asylum seekers"; a
    descriptive adjective before it is skipped as no head but starts the phrase ("three key
    seats" counts "key seats", unit "seats").  A plural right after the head is part of it
    ("151,000 sports clubs"), and one coordinated modifier before the head is too
    ("900,000 military and civilian staff").
    """
    first = weak = ""
    first_end = weak_end = pos
    phrase_start = pos
    content = 0
    in_prefix = True
    seen_of = False
    modifier_start = -1
    start = last_end = pos
    last = ""
    opened = False
    while content < 4:
        m = _NEXT_WORD.match(sentence, pos)
        if m is None and pos == start:
            m = (_NEXT_WORD_AFTER_QUOTE if quoted else _NEXT_WORD_QUOTED).match(sentence, pos)
            opened = m is not None and not quoted
        elif m is None and opened:
            m = _NEXT_WORD_AFTER_QUOTE.match(sentence, pos)  # '8 "critical" security holes'
            opened = False
        if m is None:
            break
        word = m.group(1)
        if word[0].islower():
            word = word.rstrip("'’")  # "two hours' PE"; "Wales' victories" stays a possessive name
        low = word.lower()
        if in_prefix and (low in _SKIP_WORDS or (low == "of" and not seen_of)):
            seen_of = seen_of or low == "of"
            if low in _NOUN_MODIFIERS:
                modifier_start = m.start(1) if modifier_start < 0 else modifier_start
            elif low == "of":
                modifier_start = -1
            pos = m.end()
            continue
        if low in ("and", "or") and not in_prefix and not weak and _coordinated_modifier(sentence, m.end()):
            pos = m.end()
            continue
        if low in _STOP_WORDS or low in _SKIP_WORDS or (low == "of" and (first or weak)):
            break  # "of" ends a phrase that has its noun ("one place ahead of Girls"), not a name ("Bank of America")
        if in_prefix:
            phrase_start = m.start(1) if modifier_start < 0 else modifier_start
        in_prefix = False
        content += 1
        pos = m.start(1) + len(word)
        if word in _CURRENCY_CODES:
            return word, pos, m.start(1)  # "5 million USD"
        if _ACRONYM_PLURAL.fullmatch(word):
            return _compound_head(sentence, low, pos, phrase_start)  # "MPs", "MEPs", "CEOs"
        if word[0].isupper():
            # Proper-noun modifiers ("Boston police officers", "ICE agents") are skipped;
            # a capitalised plural ("Americans", "Democrats") is itself the counted noun.
            if not word.isupper() and _is_plural(low):
                return low, pos, phrase_start
            continue
        if low in _WEAK_PLURALS:
            if weak == "":
                weak, weak_end = low, pos
            continue
        if _is_plural(low):
            return _compound_head(sentence, low, pos, phrase_start)
        if not first and not low.endswith(("ed", "ly")):
            first, first_end = low, pos
        elif (singular and first and content == 2 and last == first and first not in _MEASURE_UNITS
              and first not in _UNIT_ALIASES and low not in _NOT_A_HEAD and not low.endswith(("ed", "ly", "ing"))
              and not any(c in first + low for c in "'’") and not sentence[last_end:m.start(1)].strip()):
            first, first_end = low, pos  # "one prison suicide": the head ends the run
        last, last_end = low, pos
    if weak:
        return weak, weak_end, phrase_start
    if first:
        return first, first_end, phrase_start
    return "", first_end, first_end

# A number's unit of measure stays the head of the run it opens: "a 24 hour strike",
# "a 10 mile walk", "a three point lead", "a 49 minute speech".
_MEASURE_UNITS = _words(
    "second minute hour day week month year decade century mile metre meter kilometre kilometer foot inch yard"
    " pound ounce ton tonne gram kilogram litre liter gallon acre point percent cent degree storey story seat star"
    " bedroom page man person member"
)
# Words that follow a singular count without being its head: "one shot better", "a goal ahead".
_NOT_A_HEAD = _words(
    "ahead away apart back clear short long old young high low better worse higher lower older younger bigger smaller"
    " larger greater less more ago alone only off below above behind throughout together overall instead apiece"
    " each here there too like worth enough certain"
)
# The first word of a counted noun may open a quotation; after a quoted number, the
# quotation's closing mark comes first.
_QUOTE_MARKS = re.compile(r"[“”\"‘’](?=[ \t])")
_NEXT_WORD_QUOTED = re.compile(r"[ \t]+[“\"‘]([A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*)")
_NEXT_WORD_AFTER_QUOTE = re.compile(r"[”\"’][ \t]+([A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*)")


_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")


def _quoted_from(sentence: str, start: int) -> bool:
    """Whether a quotation opens right before the quantity at ``start`` ('"several hundred"')."""
    before = sentence[:start].rstrip(" \t")
    return before.endswith(("“", "‘")) or (before.endswith('"') and (len(before) == 1 or not before[-2].isalnum()))


def _coordinated_modifier(sentence: str, pos: int) -> bool:
    """Whether "and"/"or" at ``pos`` joins two lower-case modifiers of one head ("military and
    civilian staff"), not two things counted apart ("5 cities and 3 towns", "22 Maori and four
    others")."""
    before = _LAST_WORD_BEFORE.search(sentence, 0, pos)
    m = _NEXT_WORD.match(sentence, pos)
    if m is None or before is None or not before.group(1)[0].islower():
        return False
    low = m.group(1).lower()
    return (m.group(1)[0].islower() and low not in _STOP_WORDS and low not in _SKIP_WORDS and low not in _SMALL
            and not _is_plural(low) and not low.endswith("ly"))


_LAST_WORD_BEFORE = re.compile(r"([A-Za-z][\w'’-]*)[ \t]+(?:and|or)[ \t]*$")
# Plurals that modify a following noun: "sports clubs", "singles matches", "savings accounts".
_ATTRIBUTIVE_PLURALS = _words(
    "sports singles doubles games news savings arms drugs sales goods customs earnings arts communications"
    " electronics graphics athletics economics politics telecommunications operations services systems"
)


def _compound_head(sentence: str, head: str, end: int, phrase_start: int) -> tuple[str, int, int]:
    """A lower-case plural straight after a head that is often a modifier: "sports clubs"."""
    m = _NEXT_WORD.match(sentence, end) if head in _ATTRIBUTIVE_PLURALS else None
    if m is not None:
        low = m.group(1).lower()
        if m.group(1)[0].islower() and low not in _STOP_WORDS and _is_plural(low) and not low.endswith(("'s", "’s")):
            return low, m.end(), phrase_start
    return head, end, phrase_start


# A number in a name follows a capitalised word ("Channel 4", "Radio 5", "Boeing 747",
# "Formula 1", "Windows 95", "FTSE 100", "World War Two") that is not an ordinary word
# capitalised at the start of a sentence ("Some 1,500", "About 300", "The 31-year-old").
_NAME_BEFORE = re.compile(r"(?<![\w'’])([A-Z][\w&'’.-]*)[ \t]+$")
_NAME_AFTER = re.compile(r"[ \t]+([A-Z][a-z][\w'’-]*)([ \t]+[A-Z][a-z])?")
_SENTENCE_OPENING = re.compile(r"(?:^|[:;“\"‘(—–]|[.!?][”\"’)]?)[ \t]*$")
_DETERMINER_BEFORE = re.compile(r"(?:\b[Tt]he|\w['’]s)[ \t]+$")
_MODEL_NUMBER = re.compile(r"\d{3,4}")
_COMMON_CAPITALISED = frozenset(
    w.capitalize() for w in (
        "about around roughly approximately some nearly almost over under just only more less fewer than"
        " at least up to no all the a an and but or in on of for by with from to as since after before"
        " between among if when while although though because so yet then there here this that these those"
        " what which who his her its their our my your every each another other another top bottom"
        " monday tuesday wednesday thursday friday saturday sunday"
    ).split()
)


def _names_a_thing(sentence: str, start: int, end: int, is_digit: bool) -> bool:
    """Whether the number at ``sentence[start:end]`` is part of a name, not a quantity."""
    if not is_digit and not sentence[start].isupper():
        return False  # "lost to Rusedski six years ago"
    before = _NAME_BEFORE.search(sentence, max(0, start - 30), start)
    if before is not None:
        word = before.group(1)
        opening = _SENTENCE_OPENING.search(sentence, 0, before.start(1)) is not None
        if (word not in _COMMON_CAPITALISED and not word.endswith(("'s", "’s", "s'", "s’"))
                and not (opening and word.endswith("ly"))):
            # Still a count when a lower-case plural noun follows: "in London 13 years ago".
            unit, unit_end, _ = _scan_unit(sentence, end)
            return not (_is_plural(unit) and sentence[unit_end - len(unit):unit_end] == unit)
    if is_digit:
        return False
    # A spelled number written with a capital: "the Six Nations", "the Group of Eight",
    # "Formula One"; at a sentence's start only before a multi-word name ("Three Gorges Dam").
    if not _SENTENCE_OPENING.search(sentence, 0, start):
        return True
    after = _NAME_AFTER.match(sentence, end)
    return after is not None and after.group(2) is not None


def _spelled_value(text: str) -> float:
    whole, point, decimals = text.lower().partition(" point ")
    if point:
        digits = "".join(str(_DIGIT_WORDS[word]) for word in _WS.split(decimals.strip()))
        whole = whole.strip()
        return (0.0 if _DIGIT_WORDS.get(whole) == 0 else _spelled_value(whole)) + float("0." + digits)
    total = 0.0
    current = 0.0
    for raw in _WS.split(text.lower().replace("-", " ")):
        if not raw or raw in ("and", "a"):
            continue
        if raw in _SMALL:
            current += _SMALL[raw]
        elif raw == "hundred":
            current = (current or 1.0) * 100.0
        elif raw == "dozen":
            current = (current or 1.0) * 12.0
        else:
            total += (current or 1.0) * _SCALE[raw]
            current = 0.0
    return total + current


def _word_or_digit(text: str) -> float:
    low = text.lower()
    if low in _SMALL:
        return float(_SMALL[low])
    return float(text.replace(",", ""))


def _vague_range(text: str) -> tuple[float, float]:
    """(low, high) of a vague magnitude: at least two of its unit, below the next one up.

    "hundreds" is 200 to under 1,000 (a thousand would be "thousands"), "tens of thousands"
    20,000 to under 100,000, "several hundred" 300 to under 1,000, "a few thousand" 2,000 to
    under 10,000, "dozens" 24 to under 100.
    """
    words = _WS.split(text.lower())
    if words[0] in ("several", "a"):
        base = _SCALE[words[-1]]
        return (3.0 if words[0] == "several" else 2.0) * base, (100.0 if base == 12.0 else 10.0 * base)
    base = _VAGUE[words[-1]]
    if len(words) == 3:
        base *= 10.0 if words[0] == "tens" else 100.0
    return 2.0 * base, (100.0 if base == 12.0 else 10.0 * base)


class _Raw:
    """Mutable intermediate record; frozen Quantity objects are built at the end."""

    __slots__ = ("start", "num_start", "end", "value", "unit", "hedge", "connector",
                 "scale", "explicit_unit", "hedge_text", "noun", "low", "high", "magnitude")

    def __init__(self, start: int, num_start: int, end: int, value: float, unit: str,
                 hedge: str, connector: str, scale: float,
                 explicit_unit: bool) -> None:
        self.hedge_text = ""
        self.noun = ""
        self.low: float | None = None
        self.high: float | None = None
        self.magnitude = ""
        self.start = start
        self.num_start = num_start
        self.end = end
        self.value = value
        self.unit = unit
        self.hedge = hedge
        self.connector = connector
        self.scale = scale
        self.explicit_unit = explicit_unit


# A fraction naming part of a period: "the first half of 2004", "the second half",
# "half of the year", "a quarter of last year".
_PERIOD_ORDINAL_BEFORE = re.compile(
    r"\b(?:first|second|third|fourth|final|last|latter|former|previous|next|same|opening|closing|early|late)[ \t]+$",
    re.IGNORECASE,
)
_PERIOD_AFTER = re.compile(
    r"[ \t]+of[ \t]+(?:(?:the|this|that|last|next|each|every|a)[ \t]+)?(?:(?:financial|fiscal|calendar|tax|academic|school)[ \t]+)?"
    r"(?:(?:1[6-9]|20)\d\d\b|year|decade|century|season|month|quarter|term|week|day|Jan(?:uary)?\b|Feb(?:ruary)?\b|March\b"
    r"|Apr(?:il)?\b|May\b|June?\b|July?\b|Aug(?:ust)?\b|Sept?(?:ember)?\b|Oct(?:ober)?\b|Nov(?:ember)?\b|Dec(?:ember)?\b)",
    re.IGNORECASE,
)
# "over" after a sum of money spreads it over a period ("£960m over 15 years"); elsewhere
# ("waiting over 12 months", "took over 10 hours") it means more than.
_SUM_BEFORE = re.compile(r"(?:[$£€¥][ \t]?\d[\d.,]*(?:[ \t]?(?:bn|m|k|tn|billion|million|trillion))?|\))[ \t]*$", re.IGNORECASE)
_RANGE_GAP = re.compile(r"[ \t]*(?:[-–—]|to|and|or)[ \t]*$", re.IGNORECASE)
MONEY_UNITS = frozenset(_CURRENCY.values()) | _CURRENCY_CODES
# An age is counted in the period it is measured in: "21-year-old" and "30-year-olds" have
# unit "year", as "five-year" has.
_AGE_UNIT = re.compile(r"(hour|day|week|month|year|decade)-olds?")
_DURATION_UNITS = _words(
    "second seconds minute minutes hour hours day days week weeks month months"
    " year years decade decades"
)


# Scanning the whole sentence with _MASTER costs ~100us; instead cheap C-level scans find
# the few offsets where a quantity can start and _MASTER is only tried there.
_DIGIT_ANCHOR = re.compile(r"[\d$£€¥]")
_WORD_ANCHOR = re.compile(r"[a-z]+")
_ANCHOR_WORDS = frozenset(_SMALL) | frozenset(_VAGUE) | frozenset(_DENOM) | _words(
    "hundred thousand million billion trillion dozen tens several few zero nought naught"
)


def _anchors(sentence: str) -> list[int]:
    found: list[int] = []
    for m in _DIGIT_ANCHOR.finditer(sentence):
        pos = m.start()
        if pos and sentence[pos - 1] in "0123456789,.":
            continue
        if m.group() == "$" and pos:
            if sentence[pos - 2:pos] == "US":
                pos -= 2
            elif sentence[pos - 1] in "CA":
                pos -= 1
        found.append(pos)
    lower = sentence.lower()
    if len(lower) != len(sentence):
        # Case folding changed offsets (rare non-ASCII); fall back to every word start.
        return sorted(set(found) | {m.start() for m in re.finditer(r"\b[^\W\d_]", sentence)})
    for m in _WORD_ANCHOR.finditer(lower):
        if m.group() in _ANCHOR_WORDS:
            pos = m.start()
            if pos >= 2 and lower[pos - 2:pos] == "a " and (pos == 2 or not lower[pos - 3].isalnum()):
                found.append(pos - 2)
            found.append(pos)
    found.sort()
    return found


def _matches(sentence: str) -> list[re.Match[str]]:
    out: list[re.Match[str]] = []
    last_end = 0
    for pos in _anchors(sentence):
        if pos < last_end:
            continue
        m = _MASTER.match(sentence, pos)
        if m is not None and m.end() > pos:
            out.append(m)
            last_end = m.end()
    return out


# A sports score ("won 1-0", "beat Roddick 6-2 7-6 (7-1)") is not a range: the first
# number is not below the second, or the pair stands in a run of such pairs.
_PAIR = re.compile(r"(?<![\w.,/-])(\d{1,2})-(\d{1,2})(?![\w%/-]|[.,]\d)")
_PAIR_RUN_AFTER = re.compile(r"[ \t]*(?:\(\d{1,2}[-/]\d{1,2}\)|\d{1,2}-\d{1,2}\b)")
_PAIR_RUN_BEFORE = re.compile(r"(?:\d-\d{1,2}|\(\d{1,2}[-/]\d{1,2}\))[ \t]*$")


def _score_spans(sentence: str) -> list[tuple[int, int]]:
    if "-" not in sentence:
        return []
    spans = []
    for m in _PAIR.finditer(sentence):
        first, second = int(m.group(1)), int(m.group(2))
        if (first >= second or _PAIR_RUN_AFTER.match(sentence, m.end())
                or _PAIR_RUN_BEFORE.search(sentence, max(0, m.start() - 12), m.start())):
            spans.append(m.span())
    return spans


def parse_quantities(sentence: str) -> list[Quantity]:
    raws: list[_Raw] = []
    scores = _score_spans(sentence)
    for m in _matches(sentence):
        if scores and any(a <= m.start("num") < b for a, b in scores if m.group("num") is not None):
            continue
        num_start = m.start()
        end = m.end()
        hedge = "exact"
        unit = ""
        explicit_unit = False
        yearish = False
        scale = 1.0
        noun_start = noun_end = -1
        bounds: tuple[float, float] | None = None
        if m.group("vague") is not None:
            bounds = _vague_range(m.group("vague"))
            value = bounds[0]
            hedge = "approximately"
            unit, unit_end, noun_start = _scan_unit(sentence, end, _quoted_from(sentence, m.start()))
            end = noun_end = max(end, unit_end)
            if unit in _VAGUE_UNIT_ALIASES:
                unit, noun_start = _VAGUE_UNIT_ALIASES[unit], -1
        elif m.group("frac") is not None:
            if _PERIOD_ORDINAL_BEFORE.search(sentence, max(0, m.start() - 16), m.start()) or _PERIOD_AFTER.match(sentence, m.end()):
                continue  # a part of a period is a period: "the first half of 2004", "half of the year"
            if m.group("inum") is not None:
                den = _word_or_digit(m.group("iden"))
                if den == 0:
                    continue
                value = _word_or_digit(m.group("inum")) / den
            elif m.group("fnum") is not None:
                fnum = m.group("fnum").lower()
                den_word = (m.group("fden_pl") or m.group("fden_hy") or m.group("fden_sg")).lower()
                value = (1.0 if fnum == "a" else _SMALL[fnum]) / _DENOM[den_word]
            else:
                value = 0.5
            unit = "fraction"
            explicit_unit = True
        else:
            num = m.group("num")
            is_digit = num[0].isdigit()
            num_start = m.start("num")
            if m.group("cur") is not None:
                num_start = m.start("cur")
            value = float(num.replace(",", "")) if is_digit else _spelled_value(num)
            if m.group("andhalf"):
                value += 0.5
            scale_word = m.group("scale") or (m.group("curscale") or "").strip()
            if scale_word:
                scale = _SCALE[scale_word.lower()]
                value *= scale
            elif not is_digit and _WS.split(num.lower())[-1] in _SCALE:
                scale = _SCALE[_WS.split(num.lower())[-1]]  # "seven million": the scale a range's lower end takes
            cur = m.group("cur")
            pct = m.group("pct")
            if cur is not None:
                unit = _CURRENCY[cur.lower()]
                explicit_unit = True
            elif pct is not None:
                unit = "percentage points" if "point" in pct.lower() else "percent"
                explicit_unit = True
            elif m.group("hunit") is not None:
                unit = m.group("hunit").lower()
                age = _AGE_UNIT.fullmatch(unit)
                if age is not None:
                    unit = age.group(1)  # "a 21-year-old", "18 to 30-year-olds": years, as "a five-year plan"
                explicit_unit = True
            if m.group("plus") is not None:
                hedge = "at-least"
            if (is_digit and not scale_word and m.group("hunit") is None
                    and m.end("num") < len(sentence) and sentence[m.end("num")].isalpha()):
                continue  # ordinals and codes: "22nd", "1990s", "10am"
            if sentence.endswith(("multi-", "multi"), 0, num_start):
                continue  # "multi-billion dollar campaigns": a size class, not an amount
            if not is_digit and num.lower() == "one" and (
                    _OF_AFTER.match(sentence, end)
                    or _ONE_PRONOUN_BEFORE.search(sentence, max(0, num_start - 10), num_start)):
                continue  # pronoun use: "no one", "one of the", "a loved one"
            if not scale_word and not explicit_unit and _names_a_thing(sentence, m.start("num"), m.end("num"), is_digit):
                continue  # "Channel 4", "Boeing 747", "the Six Nations", "World War Two"
            if is_digit and not scale_word and not explicit_unit:
                before = sentence[max(0, num_start - 24):num_start]
                if _MONTH_BEFORE.search(before) or _LABEL_BEFORE.search(before):
                    continue
                if _MONTH_AFTER.match(sentence, end) or _TIME_AFTER.match(sentence, end):
                    continue
                yearish = len(num) == 4 and _YEARISH.fullmatch(num) is not None
            if not explicit_unit:
                unit, unit_end, noun_start = _scan_unit(sentence, end, _quoted_from(sentence, m.start()), value == 1.0)
                if unit:
                    end = noun_end = unit_end
                    if unit in _UNIT_ALIASES:
                        unit, noun_start = _UNIT_ALIASES[unit], -1
                elif not is_digit and num.lower() == "one":
                    continue  # a bare "one" is almost always a pronoun
                if yearish and (not _is_plural(unit) or _YEAR_PREV.search(
                        sentence[max(0, num_start - 16):num_start])):
                    continue
                if (is_digit and not yearish and not scale_word and _MODEL_NUMBER.fullmatch(num) and not _is_plural(unit)
                        and unit not in _DURATION_UNITS and _HEDGE_AFTER.match(sentence, end) is None
                        and _DETERMINER_BEFORE.search(sentence, 0, num_start)):
                    continue  # a model, not a count: "the 717", "the 767 tanker", "Boeing's 747"
        # Hedge words immediately before the number.
        start = num_start
        connector = ""
        hedge_text = ""
        hm = _HEDGE_BEFORE.search(sentence, max(0, num_start - 20), num_start)
        if hm is not None:
            word = _WS.sub(" ", hm.group("h").lower())
            if word in ("between", "from"):
                connector = word
                start = hm.start("h")
            elif word == "over" and unit in _DURATION_UNITS and _SUM_BEFORE.search(sentence, 0, hm.start("h")):
                pass  # "£4bn ($7.4bn) over 10 years": a sum spread over exactly 10 years, not "more than"
            else:
                start = hm.start("h")
                if hedge == "exact":
                    hedge = _HEDGE_MAP[word]
                    hedge_text = word
        am = _HEDGE_AFTER.match(sentence, end)
        if am is not None:
            hedge = _HEDGE_AFTER_MAP[am.group("h").lower()]
            hedge_text = "or " + am.group("h").lower()
            end = am.end()
            if not unit:
                unit, end, noun_start = _scan_unit(sentence, end)
                noun_end = end
                if unit in _UNIT_ALIASES:
                    unit, noun_start = _UNIT_ALIASES[unit], -1
        raw = _Raw(start, num_start, end, value, unit, hedge, connector, scale, explicit_unit)
        raw.hedge_text = hedge_text
        if unit and noun_start >= 0:
            raw.noun = _QUOTE_MARKS.sub("", sentence[noun_start:noun_end])  # 'critical" security holes' reads whole
        if bounds is not None:
            raw.low, raw.high = bounds
            raw.magnitude = _WS.sub(" ", m.group("vague").lower())
        raws.append(raw)

    _link_ranges(sentence, raws)
    return [
        Quantity(sentence[r.start:r.end], r.start, r.end, r.value, r.unit, r.hedge,
                 r.hedge_text, r.noun, r.low, r.high, r.magnitude)
        for r in raws
    ]


def _same_kind(low: _Raw, high: _Raw) -> bool:
    """Whether ``low`` and ``high`` can be the two ends of one range.

    The ends must measure the same thing: the lower end has no unit of its own ("5 to 10
    million people", "10-20%"), both have the same unit, singular or plural ("£5m to
    £10m", "one gigabyte and 30 gigabytes"), both are durations ("16 months to four
    years"; a hyphenated one such as an age, "three and four-year-olds to 15 hours", only
    with its own unit), or the lower end is money and the upper has no explicit unit ("$5-10
    million").  Anything else is a change followed by the level it reached ("profits
    jumped 76% to $1.13bn", "fell 3.2% to 1.2 million", "rose 0.25 percentage points to
    4.5%", "fell 32 cents to $51.43"): two exact values.
    """
    lu, hu = low.unit, high.unit
    if lu == "" or lu == hu or lu + "s" == hu:
        return True
    if lu in _DURATION_UNITS and hu in _DURATION_UNITS and not low.explicit_unit and not high.explicit_unit:
        return True
    return lu in MONEY_UNITS and not high.explicit_unit


def _link_ranges(sentence: str, raws: list[_Raw]) -> None:
    """Turn "between A and B" / "A-B" / "A to B" pairs into at-least/at-most bounds."""
    for i in range(len(raws) - 1):
        low, high = raws[i], raws[i + 1]
        gap = sentence[low.end:high.num_start]
        if len(gap) > 6 or not _RANGE_GAP.fullmatch(gap):
            continue
        gap_word = gap.strip().lower()
        if gap_word == "and" and low.connector != "between":
            continue
        if not _same_kind(low, high):
            continue
        low_value = low.value * high.scale if low.scale == 1.0 and high.scale != 1.0 and low.value < 1000 else low.value
        if gap_word == "or" and (low.unit or low.scale != 1.0 or low.hedge != "exact" or high.hedge != "exact"
                                 or low_value >= high.value):
            # "six or seven million", "two or three times": a lower end that borrows the upper's
            # scale and unit is a range; "£10bn or £11bn" are two figures, each as written.
            continue
        if low.unit == "":
            low.unit, low.noun = high.unit, high.noun
        low.value = low_value
        if low.connector == "from":
            continue  # a change "from A to B": both ends are exact values
        if low.hedge == "exact":
            low.hedge = "at-least"
        if high.hedge == "exact":
            high.hedge = "at-most"
