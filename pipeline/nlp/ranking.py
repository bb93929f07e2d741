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

Lexicon entries are words and phrases, matched as whole words (hyphens and apostrophes split
words as spaces do: "pre-tax" is "pre tax", "Labour's" is "Labour"); a trailing "(s)" or
"(es)" also matches the last word with that ending. An entry written in capitals only
("ICE", "NHS"; "MPs" is not) is matched case-sensitively, so "ICE" the agency is not "ice";
every other entry case-insensitively. Where entries overlap, the longest wins and counts once:
"asylum seekers" is one term, not "asylum" and "asylum seekers".
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
        "crime(s)", "criminal(s)", "criminality", "police", "policing", "police officer(s)", "arrest(s)", "arrested",
        "murder(s)", "murdered", "homicide(s)", "killing(s)", "violence", "violent", "assault(s)", "robbery", "robberies",
        "burglary", "burglaries", "theft(s)", "fraud", "prison(s)", "prisoner(s)", "jail", "jailed", "jails", "sentenced",
        "convicted", "conviction(s)", "offender(s)", "offence(s)", "gang(s)", "knife crime", "gun(s)", "shooting(s)",
        "stabbing(s)", "court(s)", "trial", "prosecuted", "prosecution(s)", "prosecutor(s)", "justice",
        "anti-social behaviour",
    ),
    "immigration": (
        "immigration", "immigrant(s)", "migrant(s)", "migration", "asylum", "asylum seeker(s)", "refugee(s)",
        "deport", "deports", "deported", "deporting", "deportation(s)", "border(s)", "visa(s)", "undocumented",
        "sanctuary", "alien(s)", "citizenship", "ICE", "illegal immigrant(s)", "illegal immigration", "illegally entered",
        "illegal crossing(s)", "detention centre(s)",
    ),
    "economy": (
        "tax", "taxes", "taxed", "taxation", "taxing", "taxpayer(s)", "income tax", "jobs", "unemployment", "unemployed",
        "jobless", "inflation", "interest rate(s)", "deficit", "economic growth", "GDP", "recession", "economy",
        "economic", "pension(s)", "pensioner(s)", "wage(s)", "minimum wage", "earnings gap", "prices", "cost of living",
        "poverty", "welfare", "benefits", "national debt", "public debt", "borrowing", "mortgage(s)", "house prices",
        "living standards",
    ),
    "health": (
        "NHS", "hospital(s)", "health", "healthcare", "patient(s)", "doctor(s)", "nurse(s)", "GP", "GPs", "disease(s)",
        "cancer", "virus(es)", "vaccine(s)", "vaccination(s)", "pandemic", "epidemic", "flu", "obesity", "smoking",
        "drugs", "alcohol", "mental health", "waiting list(s)", "waiting time(s)", "surgery", "MRSA", "HIV", "AIDS",
        "deaths from",
    ),
    "public_money": (
        "spending", "spend", "spent", "budget(s)", "cost to the taxpayer", "taxpayers' money", "public funds",
        "public money", "public purse", "public spending", "funding", "funded", "government contract(s)", "subsidy",
        "subsidies", "subsidised", "subsidized", "bailout(s)", "bail-out(s)", "procurement", "overspend",
        "value for money", "National Audit Office", "grants to", "wasted",
    ),
    "elections": (
        "vote(s)", "voted", "voter(s)", "voting", "poll(s)", "polling", "election(s)", "electoral", "party", "parties",
        "manifesto(s)", "MP", "MPs", "MEP", "MEPs", "parliament", "parliamentary", "referendum", "ballot(s)",
        "constituency", "constituencies", "general election", "government", "legislation", "Congress", "Senate",
        "Commons", "cabinet", "prime minister", "opposition",
    ),
    "education": (
        "school(s)", "pupil(s)", "student(s)", "teacher(s)", "university", "universities", "tuition fees", "education",
        "exam(s)", "GCSE", "GCSEs", "A-level(s)", "Ofsted", "literacy", "classroom(s)", "college(s)",
    ),
    "environment": (
        "climate", "climate change", "global warming", "emissions", "carbon", "CO2", "pollution", "greenhouse",
        "renewable(s)", "fossil fuel(s)", "environment", "environmental", "flood(s)", "flooding", "drought(s)",
        "wildfire(s)", "recycling", "deforestation", "wind farm(s)", "biodiversity",
    ),
    "security": (
        "war(s)", "terror", "terrorism", "terrorist(s)", "military", "troops", "soldier(s)", "army", "armed forces",
        "bomb(s)", "bombing(s)", "bombed", "missile(s)", "nuclear weapons", "weapons", "defence", "defense", "NATO", "Iraq",
        "Afghanistan", "national security", "invasion", "ceasefire", "insurgent(s)", "hostage(s)", "al-Qaeda",
        "extremist(s)",
    ),
}
# Phrases that look like a topic's term and are not: they take their words out of the count.
NOT_TOPICS: tuple[str, ...] = ("pre-tax",)
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
    "minister(s)", "secretary", "chancellor", "prime minister", "premier", "president", "MP", "MPs", "MEP", "MEPs", "MSP",
    "MSPs", "senator(s)", "congressman", "congresswoman", "governor", "mayor", "leader", "spokesman", "spokeswoman",
    "police chief", "chief constable", "commissioner", "police officer(s)", "immigration officer(s)",
    "border officer(s)", "prison officer(s)", "probation officer(s)", "customs officer(s)", "judge(s)", "magistrate(s)",
    "attorney general", "prosecutor(s)", "district attorney", "sheriff", "councillor(s)", "ambassador", "envoy",
    "lawmaker(s)", "legislator(s)", "official(s)", "government", "Home Office", "Foreign Office", "Treasury",
    "Downing Street", "No 10", "White House", "police", "Scotland Yard", "Met Police", "Metropolitan Police", "court(s)",
    "ICE", "DHS", "EU", "UN", "NHS", "FBI", "HMRC", "DWP", "ONS", "IMF", "OECD", "NATO", "WHO", "Pentagon", "Kremlin",
    "Congress", "Senate", "Parliament", "Whitehall", "department", "ministry", "council", "Bank of England",
    "Federal Reserve", "Office for National Statistics", "European Commission", "Electoral Commission", "Border Force",
    "State Department", "Immigration and Customs Enforcement", "Homeland Security", "Customs and Border Protection",
    "CBP", "candidate(s)", "Labour", "Conservative(s)", "Tory", "Tories", "Liberal Democrat(s)", "Lib Dem(s)",
    "Democrat(s)", "Republican(s)", "SNP", "Plaid Cymru", "UKIP", "Green Party", "GOP",
)
# A speaker naming an organisation rather than a person (when no official term matched).
ORGANISATION_WORDS: tuple[str, ...] = (
    "Inc", "Corp", "Corporation", "Ltd", "plc", "group", "bank", "institute", "university", "college", "association",
    "federation", "union", "society", "trust", "foundation", "agency", "commission", "company", "firm", "partners",
    "research", "centre", "center", "fund", "charity", "campaign", "network", "board", "authority", "office",
    "organisation", "organization", "confederation", "chamber", "club",
)
# Forms of address, not titles: "Mr" says nothing of who speaks ("Dr" and "Professor" do).
HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "mx"})
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
    "profit(s)", "pre-tax profit(s)", "revenue(s)", "sales", "turnover", "earnings", "quarterly", "first quarter",
    "second quarter", "third quarter", "fourth quarter", "final quarter", "three months to", "shares", "share price",
    "shareholder(s)", "dividend(s)", "investor(s)", "analyst(s)", "the firm", "the company", "the group", "stock(s)",
    "stock market", "market share", "chief executive", "merger(s)", "takeover", "acquisition(s)", "full-year",
    "annual results", "operating income", "net income", "giant", "retailer(s)", "Wall Street",
)
SPORT: tuple[str, ...] = (
    "football", "rugby", "cricket", "tennis", "golf", "athletics", "match", "matches", "goal(s)", "scored", "striker",
    "midfielder", "goalkeeper", "coach", "league", "cup", "Premiership", "Premier League", "championship(s)",
    "champion(s)", "tournament", "semi-final(s)", "quarter-final(s)", "fixture(s)", "squad", "Six Nations",
    "Wimbledon", "Olympic(s)", "Olympian", "medal(s)", "World Cup", "grand slam", "grand prix", "Formula One",
    "innings", "wicket(s)", "test match",
)
# A result: "beat Arsenal 2-1", "won 3-0".
SCORELINE = re.compile(r"\b(?:beat|beaten|won|lost|drew|defeated)\b[^.]{0,40}?\b\d{1,2}-\d{1,2}\b", re.IGNORECASE)
ENTERTAINMENT: tuple[str, ...] = (
    "film(s)", "movie(s)", "album(s)", "box office", "star(s)", "starred", "starring", "chart(s)", "award(s)",
    "Oscar(s)", "Grammy", "Grammys", "Bafta(s)", "Brit Awards", "actor", "actress", "singer(s)", "rapper", "band",
    "celebrity", "celebrities", "Hollywood", "TV show", "sitcom", "soap", "premiere", "concert(s)", "number one",
    "bestseller(s)", "reality show", "festival",
)
# Strength of a routine category by distinct terms used (one, two, three+).
ROUTINE_BY_HITS: tuple[float, ...] = (0.0, 0.5, 0.75, 1.0)
# A public-interest topic cancels business routine (a company's tax bill or government contract
# is a public matter) and halves sport and entertainment (an arrest at a match is still news).
ROUTINE_WITH_TOPIC: dict[str, float] = {"business": 0.0, "sport": 0.5, "entertainment": 0.5}


# Words as the lexicons count them: letters, digits and "&" ("A&E"); a possessive's
# apostrophe and "s" are dropped.
_TOKEN = re.compile(r"[A-Za-z0-9&]+(?:['’][A-Za-z]+)?")
_OPTIONAL_ENDING = re.compile(r"^(.*)\((\w+)\)$")


def _words(text: str) -> list[str]:
    return [word[:-2] if word.endswith(("'s", "’s")) else word for word in _TOKEN.findall(text)]


def _is_acronym(term: str) -> bool:
    letters = [char for char in term if char.isalpha()]
    return bool(letters) and all(char.isupper() for char in letters)


def _spellings(term: str) -> list[str]:
    """A lexicon entry's spellings: "asylum seeker(s)" -> "asylum seeker", "asylum seekers"."""
    optional = _OPTIONAL_ENDING.match(term)
    return [optional.group(1), optional.group(1) + optional.group(2)] if optional else [term]


class Lexicons:
    """Named lexicons matched in one pass over a text's words: at each word the longest entry
    of any lexicon that starts there, then on after it."""

    def __init__(self, lexicons: Mapping[str, Iterable[str]]) -> None:
        self.folded: dict[tuple[str, ...], set[str]] = {}
        self.exact: dict[tuple[str, ...], set[str]] = {}
        for name, terms in lexicons.items():
            for term in terms:
                for spelling in _spellings(term):
                    words = tuple(_words(spelling))
                    if _is_acronym(spelling):
                        self.exact.setdefault(words, set()).add(name)
                    else:
                        self.folded.setdefault(tuple(word.lower() for word in words), set()).add(name)
        keys = [*self.folded, *self.exact]
        self.longest = max((len(key) for key in keys), default=1)
        # The first words of the entries longer than one word: only there is a longer match tried.
        self.starts = {key[0].lower() for key in keys if len(key) > 1}

    def hits(self, text: str) -> dict[str, set[tuple[str, ...]]]:
        """Lexicon name -> the distinct entries of it (as lower-cased words) found in the text."""
        words = _words(text)
        lower = [word.lower() for word in words]
        found: dict[str, set[tuple[str, ...]]] = {}
        index, count = 0, len(words)
        while index < count:
            longest = min(self.longest, count - index) if lower[index] in self.starts else 1
            for length in range(longest, 0, -1):
                key = tuple(lower[index : index + length])
                names = self.folded.get(key)
                if names is None and words[index].isupper():
                    names = self.exact.get(tuple(words[index : index + length]))
                if names is not None:
                    for name in names:
                        found.setdefault(name, set()).add(key)
                    index += length
                    break
            else:
                index += 1
        return found


# One pass over a sentence finds its topics and its routine categories; where their entries
# overlap the longest wins ("pre-tax profits" is business, not tax).
ROUTINE_CATEGORIES: dict[str, tuple[str, ...]] = {"business": ROUTINE_BUSINESS, "sport": SPORT, "entertainment": ENTERTAINMENT}
_NOT_A_TOPIC = ""
_SENTENCE_LEXICONS = Lexicons({**TOPICS, _NOT_A_TOPIC: NOT_TOPICS, **ROUTINE_CATEGORIES})
_SOURCE_LEXICONS = Lexicons({"official": OFFICIAL_SOURCES, "organisation": ORGANISATION_WORDS})


def _by_hits(table: Sequence[float], hits: int) -> float:
    return table[min(hits, len(table) - 1)]


def public_interest(found: Mapping[str, set[tuple[str, ...]]]) -> tuple[float, str]:
    """(strength, topic) of the strongest topic among a sentence's lexicon hits; ties go to
    the topic listed first in TOPICS."""
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
    if "official" in _SOURCE_LEXICONS.hits(f"{speaker} {speaker_title}"):
        return SOURCE_OFFICIAL
    titled = speaker_title.strip(" .").lower() not in {"", *HONORIFICS}
    if titled or "organisation" in _SOURCE_LEXICONS.hits(speaker) or _looks_like_acronym(speaker):
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


def routine(found: Mapping[str, set[tuple[str, ...]]], *, sentence: str, topic: str) -> float:
    """The strongest routine category among a sentence's lexicon hits (and its scoreline)."""
    hits = {category: len(found.get(category, ())) for category in ROUTINE_CATEGORIES}
    if SCORELINE.search(sentence):
        hits["sport"] += 1
    strengths = [
        _by_hits(ROUTINE_BY_HITS, count) * (ROUTINE_WITH_TOPIC[category] if topic else 1.0) for category, count in hits.items()
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
    found = _SENTENCE_LEXICONS.hits(sentence)
    interest, topic = public_interest(found)
    types = list(claim_types) or [claim_type]
    return {
        "public_interest": round(interest, 4),
        "topic": topic,
        "source": source_prominence(speaker=speaker, speaker_title=speaker_title, attribution=attribution),
        "specificity": round(
            specificity(sentence=sentence, claim_types=types, quantities=quantities, speaker=speaker, attribution=attribution), 4
        ),
        "routine": round(routine(found, sentence=sentence, topic=topic), 4),
    }
