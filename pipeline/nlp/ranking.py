"""Ranking signals: what a desk weighs beyond check-worthiness, per claim, in [0, 1].

``rank_signals`` returns

* ``public_interest`` and ``topic``: the strongest topic of public concern the sentence is
  about (crime, immigration, the economy, health, elections, public money, education, the
  environment, security), from the lexicons below; 0 and "" when none matches.
* ``source``: how prominent the claim's source is: 1.0 an official, a politician, a party or
  a public body; 0.6 another organisation or a titled person (an expert, an analyst, an
  executive); 0.4 a named person with no title; 0.2 the article's own assertion (or no
  speaker at all).
* ``specificity``: what makes the claim checkable against a record: parsed quantities, a
  comparison or trend, a named source, named entities, a date; 0 for a vague sentence.
* ``routine``: routine business results (only when no public-interest topic matched), sport
  results, entertainment and celebrity news; 0 when not routine.

The weights that turn these into a priority live in the database (``ranking_weights``) and the
formula in the PostgreSQL function ``claim_priority_parts`` (factcheck/claims migrations), so
the web app can re-rank without a pipeline run. The lexicons are module constants to tune.

Lexicon entries are regular-expression fragments matched on word boundaries. An entry written
in capitals only ("ICE", "NHS", "MPs" is not) is matched case-sensitively, so "ICE" the agency
is not "ice"; every other entry is matched case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "ENTERTAINMENT",
    "OFFICIAL_SOURCES",
    "ORGANISATION_WORDS",
    "ROUTINE_BUSINESS",
    "SPECIFICITY_POINTS",
    "SPORT",
    "TOPICS",
    "TOPIC_WEIGHTS",
    "rank_signals",
]

# --- Topics of public concern --------------------------------------------------------------
TOPICS: dict[str, tuple[str, ...]] = {
    "crime": (
        r"crimes?", r"criminals?", r"criminality", r"police", r"policing", r"police officers?", r"arrests?", r"arrested",
        r"murders?", r"murdered", r"homicides?", r"killings?", r"violence", r"violent", r"assaults?", r"robbery", r"robberies",
        r"burglary", r"burglaries", r"theft", r"thefts", r"fraud", r"prisons?", r"prisoners?", r"jail(?:ed|s)?", r"sentenced",
        r"convicted", r"convictions?", r"offenders?", r"offences?", r"gangs?", r"knife crime", r"guns?", r"shootings?",
        r"stabbings?", r"courts?", r"trial", r"prosecut(?:ed|ion|ions|or|ors)", r"justice", r"anti-social behaviour",
    ),
    "immigration": (
        r"immigration", r"immigrants?", r"migrants?", r"migration", r"asylum", r"asylum seekers?", r"refugees?",
        r"deport(?:ed|ing|ation|ations|s)?", r"borders?", r"visas?", r"undocumented", r"sanctuary", r"aliens?",
        r"citizenship", r"ICE", r"illegal(?:ly)? (?:immigrants|entered|crossing)", r"detention centres?",
    ),
    "economy": (
        r"(?<!pre-)tax(?:es|ed|ation|ing)?", r"taxpayers?", r"income tax", r"jobs", r"unemployment", r"unemployed",
        r"jobless", r"inflation", r"interest rates?", r"deficit", r"economic growth", r"GDP", r"recession",
        r"economy", r"economic", r"pensions?", r"pensioners?", r"wages?", r"minimum wage", r"earnings gap", r"prices",
        r"cost of living", r"poverty", r"welfare", r"benefits", r"national debt", r"public debt", r"borrowing",
        r"mortgages?", r"house prices", r"living standards",
    ),
    "health": (
        r"NHS", r"hospitals?", r"health", r"healthcare", r"patients?", r"doctors?", r"nurses?", r"GPs?", r"diseases?",
        r"cancer", r"virus(?:es)?", r"vaccin(?:e|es|ation|ations)", r"pandemic", r"epidemic", r"flu", r"obesity",
        r"smoking", r"drugs", r"alcohol", r"mental health", r"waiting lists?", r"waiting times?", r"surgery", r"MRSA",
        r"HIV", r"AIDS", r"deaths from",
    ),
    "public_money": (
        r"spending", r"spend", r"spent", r"budgets?", r"cost to the taxpayer", r"taxpayers' money", r"public funds",
        r"public money", r"public purse", r"public spending", r"funding", r"funded", r"government contracts?",
        r"subsid(?:y|ies|ised|ized)", r"bail-?outs?", r"procurement", r"overspend", r"value for money",
        r"National Audit Office", r"grants to", r"wasted",
    ),
    "elections": (
        r"vot(?:e|es|ed|ers?|ing)", r"polls?", r"polling", r"elections?", r"electoral", r"party", r"parties",
        r"manifestos?", r"MPs?", r"MEPs?", r"parliament(?:ary)?", r"referendum", r"ballots?", r"constituenc(?:y|ies)",
        r"general election", r"government", r"legislation", r"Congress", r"Senate", r"Commons", r"cabinet",
        r"prime minister", r"opposition",
    ),
    "education": (
        r"schools?", r"pupils?", r"students?", r"teachers?", r"universit(?:y|ies)", r"tuition fees", r"education",
        r"exams?", r"GCSEs?", r"A-levels?", r"Ofsted", r"literacy", r"classrooms?", r"colleges?",
    ),
    "environment": (
        r"climate", r"climate change", r"global warming", r"emissions", r"carbon", r"CO2", r"pollution", r"greenhouse",
        r"renewables?", r"fossil fuels?", r"environment(?:al)?", r"floods?", r"flooding", r"droughts?", r"wildfires?",
        r"recycling", r"deforestation", r"wind farms?", r"biodiversity",
    ),
    "security": (
        r"wars?", r"terror(?:ism|ist|ists)?", r"military", r"troops", r"soldiers?", r"army", r"armed forces",
        r"bomb(?:s|ing|ings|ed)?", r"missiles?", r"nuclear weapons", r"weapons", r"defen[cs]e", r"NATO", r"Iraq",
        r"Afghanistan", r"national security", r"invasion", r"ceasefire", r"insurgents?", r"hostages?", r"al-Qaeda",
        r"extremists?",
    ),
}
# How much each topic counts as public interest: the six core topics fully.
TOPIC_WEIGHTS: dict[str, float] = {
    "crime": 1.0, "immigration": 1.0, "economy": 1.0, "health": 1.0, "public_money": 1.0, "elections": 1.0,
    "education": 0.8, "environment": 0.8, "security": 0.9,
}
# Strength of a topic by how many distinct terms of it the sentence uses (one, two, three+).
INTEREST_BY_HITS: tuple[float, ...] = (0.0, 0.7, 0.85, 1.0)

# --- Who speaks -----------------------------------------------------------------------------
# Officials, politicians, parties and public bodies, matched in the speaker and the title.
OFFICIAL_SOURCES: tuple[str, ...] = (
    r"ministers?", r"secretary", r"chancellor", r"prime minister", r"premier", r"president", r"MPs?", r"MEPs?", r"MSPs?",
    r"senators?", r"congress(?:man|woman)", r"governor", r"mayor", r"leader", r"spokes(?:man|woman)", r"police chief",
    r"chief constable", r"commissioner", r"(?:police|immigration|border|prison|probation|customs) officers?",
    r"judges?", r"magistrates?", r"attorney general", r"prosecutors?", r"district attorney", r"sheriff", r"councillors?",
    r"ambassador", r"envoy", r"lawmakers?", r"legislators?", r"officials?", r"the government", r"government",
    r"Home Office", r"Foreign Office", r"Treasury", r"Downing Street", r"No 10", r"White House", r"police",
    r"Scotland Yard", r"Met Police", r"Metropolitan Police", r"courts?", r"ICE", r"DHS", r"EU", r"UN", r"NHS", r"FBI", r"HMRC", r"DWP", r"ONS", r"IMF",
    r"OECD", r"NATO", r"WHO", r"Pentagon", r"Kremlin", r"Congress", r"Senate", r"Parliament", r"Whitehall",
    r"department", r"ministry", r"council", r"Bank of England", r"Federal Reserve", r"Office for National Statistics",
    r"European Commission", r"Electoral Commission", r"Border Force", r"State Department",
    r"Immigration and Customs Enforcement", r"Homeland Security", r"Customs and Border Protection", r"CBP",
    r"candidates?", r"Labour", r"Conservatives?",
    r"Tor(?:y|ies)", r"Liberal Democrats?", r"Lib Dems?", r"Democrats?", r"Republicans?", r"SNP", r"Plaid Cymru",
    r"UKIP", r"Green Party", r"GOP",
)
# A speaker naming an organisation rather than a person (when no official term matched).
ORGANISATION_WORDS: tuple[str, ...] = (
    r"Inc", r"Corp(?:oration)?", r"Ltd", r"plc", r"group", r"bank", r"institute", r"university", r"college",
    r"association", r"federation", r"union", r"society", r"trust", r"foundation", r"agency", r"commission",
    r"company", r"firm", r"partners", r"research", r"centre", r"center", r"fund", r"charity", r"campaign",
    r"network", r"board", r"authority", r"office", r"organi[sz]ation", r"confederation", r"chamber", r"club",
)
SOURCE_OFFICIAL, SOURCE_ORGANISATION, SOURCE_PERSON, SOURCE_ARTICLE = 1.0, 0.6, 0.4, 0.2

# --- Specificity ----------------------------------------------------------------------------
SPECIFICITY_POINTS: dict[str, float] = {
    "quantity": 0.4,  # at least one parsed quantity
    "comparison": 0.2,  # a comparison or trend
    "named_source": 0.2,  # someone (not the article itself) makes the claim
    "entity": 0.1,  # per named entity in the sentence, up to two
    "date": 0.1,  # a year, month or weekday: the claim is anchored in time
}
SPECIFIC_TYPES = frozenset({"comparison"})
ENTITY_STOPWORDS = frozenset({"I", "The", "A", "An", "Mr", "Mrs", "Ms", "Dr", "But", "And", "It", "He", "She", "We", "They"})
_DATE = re.compile(
    r"\b(?:1[89]\d\d|20\d\d|January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|last (?:year|month|week)|this year)\b"
)
_MONTHS_AND_DAYS = frozenset(
    "January February March April May June July August September October November December "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
)
_WORD = re.compile(r"[A-Za-z][\w'’&.-]*")

# --- Routine news ---------------------------------------------------------------------------
ROUTINE_BUSINESS: tuple[str, ...] = (
    r"profits?", r"pre-tax profits?", r"revenues?", r"sales", r"turnover", r"earnings", r"quarterly",
    r"(?:first|second|third|fourth|final) quarter", r"three months to", r"shares", r"share price", r"shareholders?",
    r"dividends?", r"investors?", r"analysts?", r"the firm", r"the company", r"the group", r"stocks?",
    r"stock market", r"market share", r"chief executive", r"mergers?", r"takeover", r"acquisitions?", r"full-year",
    r"annual results", r"operating income", r"net income", r"giant", r"retailers?", r"Wall Street",
)
SPORT: tuple[str, ...] = (
    r"football", r"rugby", r"cricket", r"tennis", r"golf", r"athletics", r"match(?:es)?", r"goals?", r"scored",
    r"striker", r"midfielder", r"goalkeeper", r"coach", r"league", r"cup", r"Premiership", r"Premier League",
    r"championships?", r"champions?", r"tournament", r"(?:semi|quarter)-finals?", r"fixtures?", r"squad",
    r"Six Nations", r"Wimbledon", r"Olympics?", r"Olympian", r"medals?", r"World Cup", r"grand slam", r"grand prix",
    r"Formula One", r"innings", r"wickets?", r"test match",
    r"(?:beat|beaten|won|lost|drew|defeated)\b[^.]{0,40}?\b\d{1,2}-\d{1,2}",  # a scoreline
)
ENTERTAINMENT: tuple[str, ...] = (
    r"films?", r"movies?", r"albums?", r"box office", r"stars?", r"starred", r"starring", r"charts?", r"awards?",
    r"Oscars?", r"Grammys?", r"Baftas?", r"Brit Awards", r"actor", r"actress", r"singers?", r"rapper", r"band",
    r"celebrit(?:y|ies)", r"Hollywood", r"TV show", r"sitcom", r"soap", r"premiere", r"concerts?", r"number one",
    r"bestsellers?", r"reality show", r"festival",
)
# Strength of a routine category by distinct terms used (one, two, three+).
ROUTINE_BY_HITS: tuple[float, ...] = (0.0, 0.5, 0.75, 1.0)
# A public-interest topic cancels business routine (a company's tax bill or government contract
# is a public matter) and halves sport and entertainment (an arrest at a match is still news).
ROUTINE_WITH_TOPIC: dict[str, float] = {"business": 0.0, "sport": 0.5, "entertainment": 0.5}


def _is_acronym(term: str) -> bool:
    letters = re.sub(r"\\.|[^A-Za-z]", "", term)
    return bool(letters) and letters.isupper()


def _alternation(terms: Iterable[str]) -> str:
    """One group matching any of the terms on word boundaries: acronyms case-sensitively."""
    terms = list(terms)
    exact = [term for term in terms if _is_acronym(term)]
    folded = [term for term in terms if not _is_acronym(term)]
    # Longest first, so "asylum seekers" counts as itself rather than as "asylum".
    branches = []
    if folded:
        branches.append(r"(?i:\b(?:" + "|".join(sorted(folded, key=len, reverse=True)) + r")\b)")
    if exact:
        branches.append(r"\b(?:" + "|".join(sorted(exact, key=len, reverse=True)) + r")\b")
    return "|".join(branches)


def _grouped(lexicons: Mapping[str, Sequence[str]]) -> re.Pattern[str]:
    """One pattern with a named group per lexicon: one scan of the sentence finds them all."""
    return re.compile("|".join(f"(?P<{name}>{_alternation(terms)})" for name, terms in lexicons.items()))


_TOPIC_PATTERN = _grouped(TOPICS)
_ROUTINE_PATTERN = _grouped({"business": ROUTINE_BUSINESS, "sport": SPORT, "entertainment": ENTERTAINMENT})
_OFFICIAL_PATTERN = re.compile(_alternation(OFFICIAL_SOURCES))
_ORGANISATION_PATTERN = re.compile(_alternation(ORGANISATION_WORDS))


def _hits(pattern: re.Pattern[str], text: str) -> dict[str, set[str]]:
    """Lexicon name -> the distinct terms of it (lower-cased) found in the text."""
    found: dict[str, set[str]] = {}
    for match in pattern.finditer(text):
        name = match.lastgroup
        if name is not None:
            found.setdefault(name, set()).add(match.group().lower())
    return found


def _by_hits(table: Sequence[float], hits: int) -> float:
    return table[min(hits, len(table) - 1)]


def public_interest(sentence: str) -> tuple[float, str]:
    """(strength, topic) of the strongest topic; ties go to the topic listed first in TOPICS."""
    found = _hits(_TOPIC_PATTERN, sentence)
    best, best_topic = 0.0, ""
    for topic in TOPICS:
        if topic in found:
            strength = TOPIC_WEIGHTS.get(topic, 1.0) * _by_hits(INTEREST_BY_HITS, len(found[topic]))
            if strength > best:
                best, best_topic = strength, topic
    return best, best_topic


def source_prominence(*, speaker: str, speaker_title: str, attribution: str) -> float:
    if attribution == "article" or not (speaker or speaker_title):
        return SOURCE_ARTICLE
    who = f"{speaker} {speaker_title}"
    if _OFFICIAL_PATTERN.search(who):
        return SOURCE_OFFICIAL
    if speaker_title or _ORGANISATION_PATTERN.search(speaker) or _looks_like_acronym(speaker):
        return SOURCE_ORGANISATION
    return SOURCE_PERSON


def _looks_like_acronym(speaker: str) -> bool:
    stripped = speaker.strip()
    return 2 <= len(stripped) <= 6 and stripped.isalpha() and stripped.isupper()


def named_entities(sentence: str) -> int:
    """Runs of capitalised words (a rough count of names), months and weekdays aside: "Labour",
    "Home Secretary David Blunkett" (one run), "TimeWarner". The first word alone is
    capitalised by its position and does not count; a run it starts does."""
    count, run = 0, 0
    for index, match in enumerate(_WORD.finditer(sentence)):
        word = match.group().rstrip(".’'")
        if word[:1].isupper() and word not in ENTITY_STOPWORDS and word not in _MONTHS_AND_DAYS:
            run += 1
            starts_sentence = index + 1 == run
            if run == (2 if starts_sentence else 1):
                count += 1
        else:
            run = 0
    return count


def specificity(
    *, sentence: str, claim_types: Sequence[str], quantities: Sequence[Mapping[str, object]], speaker: str, attribution: str
) -> float:
    points = SPECIFICITY_POINTS
    total = 0.0
    if quantities:
        total += points["quantity"]
    if SPECIFIC_TYPES.intersection(claim_types):
        total += points["comparison"]
    if speaker and attribution != "article":
        total += points["named_source"]
    total += points["entity"] * min(2, named_entities(sentence))
    if _DATE.search(sentence):
        total += points["date"]
    return min(1.0, total)


def routine(sentence: str, *, topic: str) -> float:
    found = _hits(_ROUTINE_PATTERN, sentence)
    strengths = [
        _by_hits(ROUTINE_BY_HITS, len(terms)) * (ROUTINE_WITH_TOPIC[category] if topic else 1.0)
        for category, terms in found.items()
    ]
    return max(strengths, default=0.0)


def rank_signals(
    *,
    sentence: str,
    claim_type: str,
    claim_types: Sequence[str],
    quantities: Sequence[Mapping[str, object]],
    speaker: str,
    speaker_title: str,
    attribution: str,
) -> dict[str, float | str]:
    """The claim's ranking signals (floats in [0, 1], rounded to 4 places) and its topic."""
    interest, topic = public_interest(sentence)
    types = list(claim_types) or [claim_type]
    return {
        "public_interest": round(interest, 4),
        "topic": topic,
        "source": source_prominence(speaker=speaker, speaker_title=speaker_title, attribution=attribution),
        "specificity": round(
            specificity(sentence=sentence, claim_types=types, quantities=quantities, speaker=speaker, attribution=attribution), 4
        ),
        "routine": round(routine(sentence, topic=topic), 4),
    }
