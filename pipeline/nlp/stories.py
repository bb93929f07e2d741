"""One figure, one place at the top: the queue ranks the wordings of a figure once.

Clustering joins the same sentence across outlets; it does not join paraphrases. A campaign's
figure is written differently in every article ("Tory leader Michael Howard says his party can
save £35bn...", "The Tories on Monday highlighted £35bn in 'wasteful' spending...", "he
claimed the Tories would cut £35bn from public services"): on the BBC corpus the £35bn was six
of the queue's top 30 rows. A desk checks the figure once.

A claim's *story keys* name its headline figure together with each actor it names: the
largest sum of money (a million or more), else the largest count of something (a thousand or
more), written to three significant figures, joined to each name the sentence or its speaker
carries (parties folded: Tory, Tories, the Conservatives are one). Two clusters whose lead
wordings share a key and at least one other word ("spending", "cuts": a party and a sum are
not enough in an election, where "£3bn" and "the Tories" meet in unrelated stories), seen
within a week of each other, are wordings of one story.

The rule (`repeats`), written once: in order of standing priority, a cluster that shares a key
and a word with a cluster kept above it is a *repeat* of the highest such cluster, and the queue holds it
back by the "repeat" weight; every other cluster is kept. Only kept clusters hold others back,
so a claim that repeats a minor figure of a higher claim does not drag its own story down.
The pipeline's merge and the web app's re-rank apply it (pipeline/stories_store.py); the
ranking evaluation reads the same function.

Pure stdlib: it runs in the Spark executors with the rest of extraction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from pipeline.nlp.quantities import MONEY_UNITS

# Units that are no count of things.
_NOT_COUNTS = frozenset({"percent", "year", "years", "percentage points", "points", "fraction", "times", "ordinal"})
MIN_MONEY = 1e6
MIN_COUNT = 1e3
# Two wordings of a figure this many days apart or less are one story.
STORY_DAYS = 7

_PARTIES: dict[str, str] = {
    "tory": "conservatives", "tories": "conservatives", "conservative": "conservatives", "conservatives": "conservatives",
    "labour": "labour", "lib": "liberal democrats", "liberal": "liberal democrats", "dems": "liberal democrats",
    "snp": "snp", "plaid": "plaid cymru", "republican": "republicans", "republicans": "republicans",
}
# Capitalised words that name no actor: titles, function words that open a sentence or a
# quotation, days and months, and the offices the attribution step resolves to people.
_NOT_NAMES = frozenset("""
a an and as at but by for from he her his i if in it its last mr mrs ms miss dr sir lord lady my next no not of on or our
she so that the their then there these they this those to under we what when where which while who why with yet you your
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september
october november december chancellor minister prime secretary shadow leader spokesman spokeswoman president chief
government party budget treasury mp mps uk us britain british england english however meanwhile also some since after
before during about over more most many much few said says say according
""".split())
_WORD = re.compile(r"[A-Z][A-Za-z'’-]+")
_LOWER_WORD = re.compile(r"(?<![A-Za-z])[a-z]{3,}(?![A-Za-z])")
_FUNCTION_WORDS = frozenset("""
the and for that with this from have has had was were are been being would could should will shall said says say told
they their them his hers its which who whom what when where while than then into onto over under more most also some
any all not but can may might must our your you she him her per about after before since such only just very there here
these those other each every both own same yet still even much many now out off too how why one two three four five six
seven eight nine ten year years million billion bn
""".split())


@dataclass(frozen=True)
class StoryMember:
    """A cluster as the rule reads it: its key, its lead wording's story keys, its standing
    priority without any repeat part, and the day it was first seen (None: undated)."""

    cluster_key: str
    keys: tuple[str, ...]
    words: frozenset[str]
    priority: float
    day: int | None


def headline_figure(quantities: Sequence[Mapping[str, object]]) -> str:
    """The claim's headline figure as a key ("GBP 3.5e+10", "jobs 1.25e+04"), or "" when it
    has none big enough to tell one story from another."""
    money: list[tuple[float, str]] = []
    counts: list[tuple[float, str]] = []
    for quantity in quantities:
        value, unit = quantity.get("value"), str(quantity.get("unit") or "")
        if not isinstance(value, int | float) or not unit:
            continue
        if unit in MONEY_UNITS and value >= MIN_MONEY:
            money.append((float(value), unit))
        elif unit not in _NOT_COUNTS and value >= MIN_COUNT and quantity.get("noun"):
            counts.append((float(value), unit.lower()))
    chosen = max(money or counts, default=None)
    return f"{chosen[1]} {chosen[0]:.3g}" if chosen else ""


def actor_names(sentence: str, speaker: str = "") -> set[str]:
    """The actors a claim names, folded: parties to one name each, people and bodies by each
    capitalised word of their name that is not a title or a function word."""
    names = set()
    for word in _WORD.findall(f"{sentence} {speaker}"):
        word = word.rstrip("'’").removesuffix("'s").removesuffix("’s").lower()
        if word in _NOT_NAMES or len(word) < 3:
            continue
        names.add(_PARTIES.get(word, word))
    return names


def content_words(sentence: str) -> frozenset[str]:
    """The words of a wording that say what it is about: lower case, three letters or more,
    no function word, a plural's s dropped ("cuts" is "cut", "services" "service")."""
    words = set()
    for word in _LOWER_WORD.findall(sentence):
        if word in _FUNCTION_WORDS:
            continue
        words.add(word[:-1] if len(word) >= 4 and word.endswith("s") and not word.endswith("ss") else word)
    return frozenset(words)


def story_keys(*, sentence: str, quantities: Sequence[Mapping[str, object]], speaker: str = "", attribution: str = "") -> list[str]:
    """The claim's story keys: its headline figure joined to each actor it names; [] without
    a headline figure or a name. The speaker of a claim the article makes itself is the outlet
    ("BBC News"), no actor of the claim: every figure it repeats would be one story."""
    figure = headline_figure(quantities)
    if not figure:
        return []
    if attribution == "article":
        speaker = ""
    return sorted(f"{figure} | {name}" for name in actor_names(sentence, speaker))


def repeats(members: Iterable[StoryMember], *, days: int = STORY_DAYS) -> dict[str, str]:
    """Each repeat cluster's key -> the key of the kept cluster it repeats (the highest ranked
    kept cluster sharing one of its keys and a content word, within `days`). Greedy in order of
    priority, ties to the smaller cluster key, so the outcome does not depend on the order
    given. Kept clusters are filed by key and day, so a figure said every day for a year is
    compared with a fortnight's wordings, not with the year's."""
    kept: dict[str, dict[int | None, list[StoryMember]]] = {}
    found: dict[str, str] = {}
    for member in sorted(members, key=lambda m: (-m.priority, m.cluster_key)):
        above = [
            other
            for key in member.keys
            for other in _kept_near(kept.get(key, {}), member.day, days)
            if other.words & member.words
        ]
        if above:
            found[member.cluster_key] = min(above, key=lambda m: (-m.priority, m.cluster_key)).cluster_key
            continue
        for key in member.keys:
            kept.setdefault(key, {}).setdefault(member.day, []).append(member)
    return found


def _kept_near(by_day: dict[int | None, list[StoryMember]], day: int | None, days: int) -> Iterator[StoryMember]:
    """The kept clusters of one key seen within `days` of `day`. Undated wordings (an archive
    imported without dates) are read as one day's news: near every day."""
    if day is None:
        for members in by_day.values():
            yield from members
        return
    yield from by_day.get(None, ())
    for near in range(day - days, day + days + 1):
        yield from by_day.get(near, ())
