"""Lexical claim typing for triage: which kinds of checkable assertion a sentence makes.

``classify_claim`` returns ``(primary, matches)``, with ``matches`` listing every type that
fires, in priority order, and ``primary == matches[0]``.  It is ``("other", ["other"])`` when nothing
fires.

Priority (the type a fact-checker can verify most directly comes first):

    numeric > comparison > causal > official_action > prediction > quote > other

* ``numeric`` outranks everything because a number is the most checkable element. The
  intensifier "100%" ("But 100%, you will see...", 'Boston "100%" will...') is not a statistic
  and is ignored.
* ``comparison`` covers trends and comparatives even without a number ("higher crime
  rates", "more dangerous", "safer", "rising", "doubled", "than", "record high"); a rate
  ("crime rates") without a number is a comparison/trend claim, not ``numeric``.
* Exception: when a future modal ("will", "going to", "’ll") comes *before* the
  comparison/causal/action cue, that cue is inside the prediction's scope ("you will see a
  larger ICE presence") and ``prediction`` becomes primary.  Numbers still win.
* ``quote`` comes last among the content types: quotation marks say *who* speaks, not *what*
  is claimed.  A quoted prediction ("Boston will not back down") is therefore primary
  ``prediction`` with ``quote`` also in the list, and a sentence is primary ``quote`` only
  when the quoted words match no other type.
* Scare quotes and titles (“sanctuary”, “The Howie Carr Show”) are not quotes: a quoted
  span must hold at least three words and not be all capitalised words.  A sentence with
  an unbalanced quotation mark (the first or last sentence of a quotation that runs over several
  sentences) counts as a quote.  Callers that know the sentence lies inside a quotation
  (see ``pipeline.nlp.attribution``) pass ``has_quote=True``; ``has_quote=False``
  disables the detection.

Callers that already ran ``parse_quantities`` on the sentence can pass the result as
``quantities=`` to skip the second parse.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.nlp.quantities import Quantity, parse_quantities

__all__ = ["CLAIM_TYPES", "classify_claim", "is_quoted_speech"]

CLAIM_TYPES: tuple[str, ...] = ("numeric", "comparison", "causal", "quote", "official_action", "prediction", "other")
_PRIORITY: tuple[str, ...] = ("numeric", "comparison", "causal", "official_action", "prediction", "quote")

_STATISTIC = re.compile(
    r"\b(?:(?:the\s+)?(?:vast\s+)?(?:majority|minority)\s+of|per\s+capita|on\s+average|an?\s+average\s+of"
    r"|median|statistic(?:s|al(?:ly)?)?)\b",
    re.IGNORECASE,
)
# Intensifier use of "100%": followed by a comma or a clause, not by "of"/a noun.
_INTENSIFIER_AFTER = re.compile(
    r"[”\"’']?\s*(?:,|\s+(?:will|would|is|are|was|were|sure|certain|committed|behind|agree|correct|right|true|yes"
    r"|you|we|i|he|she|they|it|the|this|that)\b|$)",
    re.IGNORECASE,
)

_COMPARISON = re.compile(
    r"""
    \b(?:
        (?:more|less|fewer)\b(?!\s+than\s+(?:\d|a\b|an\b|one|two|three|four|five|six|seven|eight|nine|ten|twenty|
            thirty|forty|fifty|hundred|half|dozen|a\s+dozen))(?!\s+recently\b)(?!\s+or\s+less\b)
        |(?:higher|lower)\b(?!\s+(?:court|courts|education|ed|power|ups?)\b)
        |(?:larger|smaller|bigger|greater|safer|safest|worse|worst|better|best|faster|slower|cheaper|costlier|deadlier
            |deadliest|richer|poorer|stronger|weaker|wider|narrower|longer|shorter|busier|riskier|healthier|younger|older
            |highest|lowest|largest|smallest|biggest|greatest|most|least|fastest)\b
        |(?!(?:rath|oth|eith|neith|und|ov|aft|ev|howev)er\b)\w+er\s+than\b|than\s+(?:ever|before|in|at|last|the\s+(?:previous|national|state|average))\b
        |(?:rising|rises|rose|risen|increas(?:e|ed|es|ing)|decreas(?:e|ed|es|ing)|declin(?:e|ed|es|ing)
            |drop(?:ped|s|ping)?|fell|fall(?:en|ing|s)|grew|grow(?:ing|n|s)|growth|doubl(?:ed|es|ing)|tripl(?:ed|es|ing)
            |quadrupled|halved|surg(?:e|ed|es|ing)|soar(?:ed|s|ing)?|plung(?:e|ed|es|ing)|plummet(?:ed|s|ing)?
            |skyrocket(?:ed|s|ing)?|spik(?:e|ed|es|ing)|jump(?:ed|s)|climb(?:ed|s|ing)|shrank|shrunk|shrink(?:ing|s)?
            |slump(?:ed|s)?|tumbl(?:e|ed|es|ing)|dwindl(?:e|ed|es|ing)|upticks?|downturn|trend(?:s|ing)?|worsen(?:ed|s|ing)?
            |improv(?:e|ed|es|ing)|reduc(?:e|ed|es|ing|tion)|cut\s+in\s+half|outpac(?:e|ed|es|ing)|exceed(?:ed|s|ing)?
            |compared\s+(?:to|with)|relative\s+to|on\s+the\s+rise|crime\s+waves?)\b
        |record[-\s](?:high|low|level|levels|number|numbers|breaking|setting|year|amount)\b
        |(?:a|new|the)\s+record\b(?!\s+of\b)|all[-\s]time\s+(?:high|low)\b|(?:set|broke|break)\s+(?:a|the)\s+record\b
        |(?:crime|murder|homicide|poverty|unemployment|inflation|overdose)\s+rates?\b
    )""",
    re.IGNORECASE | re.VERBOSE,
)

_CAUSAL = re.compile(
    r"""\b(?:
        due\s+to|because(?:\s+of)?|lead(?:s|ing)?\s+to|led\s+to|caus(?:e|ed|es|ing)|result(?:ed|s|ing)?\s+in
        |(?:as\s+a\s+)?result\s+of|as\s+a\s+result|thanks\s+to|owing\s+to|contribut(?:e|ed|es|ing)\s+to\s+(?:the\s+|a\s+|an\s+)?(?:\w+\s+)?(?:rise|increase|decline|drop|growth|spread|deaths?|crisis|problem|surge|fall|spike|shortage|loss|losses|failure|collapse)
        |fuel(?:ed|led|s|ing)?
        |driven\s+by|blam(?:e|ed|es|ing)\s+(?:on|for)|responsible\s+for|attributed\s+to|stem(?:s|med|ming)?\s+from
        |trigger(?:ed|s|ing)?|consequently|therefore|as\s+a\s+consequence|which\s+means|in\s+turn
        |linked\s+to|(?:gave|give|giving|gives)\s+(?:cover|rise)\s+to|emboldened|(?:makes?|made|making)\s+\w+\s+(?:safer|less\s+safe|more\s+dangerous)
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)

_OFFICIAL_ACTION = re.compile(
    r"""\b(?:
        filed(?:\s+(?:a|an|the))?\s+(?:\w+\s+)?(?:lawsuit|suit|complaint|charges|motion|appeal|brief|petition)|filed\b
        |su(?:ed|es|ing)\b|lawsuits?\b|signed|vetoed|enacted|ratified|repealed|detained|deported|arrested|indicted
        |charged\s+with|convicted|sentenced|acquitted|pardoned|impeached|subpoenaed|prosecuted|extradited|fined|sanctioned
        |ruled|ruling|deemed\s+(?:\w+\s+){0,4}(?:unconstitutional|illegal|unlawful|constitutional|legal)|struck\s+down|blocked
        |testified|withh(?:eld|old(?:s|ing)?)\s+(?:\w+\s+){0,2}(?:funds|funding|grants|money)|threatened\s+to\s+(?:sue|withhold|cut|arrest|prosecute|deport)
        |(?:cut|cuts|cutting|froze|freezes|frozen|pulled|revoked|rescinded)\s+(?:\w+\s+){0,2}(?:funds|funding|grants)
        |passed\s+(?:a|an|the)\s+(?:\w+\s+)?(?:bill|law|ordinance|resolution|measure|budget)|executive\s+order|issued\s+(?:a|an)\s+
        |ordered|banned|deployed|raided|investigated|launched\s+(?:an?\s+)?(?:investigation|probe|inquiry|operation)|conducted\s+(?:an?\s+)?(?:\w+\s+){0,4}operation
        |declared\s+(?:a|an)\s+(?:state\s+of\s+)?emergency|appointed|nominated|confirmed\s+by|approved|voted\s+(?:to|for|against)
        |annul(?:led)?|overturned|upheld|injunction|indictment|warrant|detainers?|raids?\b
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)

# "will" stays case-sensitive so the first name "Will" is not read as a modal; the rest of
# the pattern is case-insensitive through scoped (?i:...) groups.
_PREDICTION = re.compile(
    r"""(?:
        (?<!\bthe\s)(?<!\bfree\s)(?<!political\s)(?<!\bgood\s)(?<!\btheir\s)(?<!\bhis\s)(?<!\bher\s)(?<!\bown\s)(?<!\bill\s)
        \bwill\b(?!\s+of\b)|\bWill\b(?=\s+[a-z])|\b(?i:won['’]t|\w+['’]ll|shall)\b
        |\b(?i:go(?:ing\s+to|nna))\s+(?!(?:the|a|an|court|jail|prison|work|school|church|bed|war|be\s+a\s+problem)\b)[a-z]+\b
        |\b(?i:going\s+to)(?=\s*(?:,|…|\.\.\.))  # an interrupted pledge: "going to, as you've heard, flood the zone"
        |\b(?i:pledg(?:e|ed|es|ing)|promis(?:e|ed|es|ing)|vow(?:ed|s|ing)?|plan(?:s|ned|ning)?\s+to|intend(?:s|ed)?\s+to
            |expect(?:s|ed)?\s+(?:to|that|a|an|the)|forecast(?:s|ed)?|predict(?:s|ed|ing)?|projected\s+to|set\s+to|about\s+to
            |is\s+likely\s+to|likely\s+(?:to|be)|threaten(?:s|ed)?\s+to|next\s+(?:year|month|week)
            |in\s+the\s+coming\s+(?:days|weeks|months|years)
            |(?:said|says|announced|warned|insisted)\s+(?:that\s+)?(?:\w+\s+){1,3}would)\b
    )""",
    re.VERBOSE,
)

# Future modals whose scope swallows a later comparison/cause/action ("you will see a larger
# ICE presence" is a prediction about a comparison, not a checkable comparison).
_FUTURE_MODAL = re.compile(r"(?<!\bthe\s)\bwill\b(?!\s+of\b)|\b(?i:won['’]t|\w+['’]ll|shall|going\s+to\s+[a-z]+|going\s+to(?=\s*(?:,|…))|gonna)\b")

def _forms(spec: str) -> frozenset[str]:
    """Expand "increas:e,ed,es,ing jump:,ed,s than" into the word forms it names."""
    out: set[str] = set()
    for item in spec.split():
        stem, _, suffixes = item.partition(":")
        out.update(stem + suf for suf in suffixes.split(",")) if suffixes else out.add(stem)
    return frozenset(out)


# Word gates: each regex above runs only if the sentence holds a word that can start one of
# its matches.  Scanning five alternations over every position costs ~150us a sentence;
# one findall plus set look-ups costs a few microseconds, and most sentences skip most regexes.
_TOKENS = re.compile(r"[a-z]+")
_STATISTIC_GATE = _forms("majority minority capita average median statistic:,s,al,ally")
_COMPARISON_GATE = _forms(
    "more less fewer higher lower larger smaller bigger greater safer safest worse worst better best faster slower"
    " cheaper costlier deadlier deadliest richer poorer stronger weaker wider narrower longer shorter busier riskier"
    " healthier younger older highest lowest largest smallest biggest greatest most least fastest than"
    " rising rises rose risen increas:e,ed,es,ing decreas:e,ed,es,ing declin:e,ed,es,ing drop:,ped,s,ping fell"
    " fall:,en,ing,s grew grow:,ing,n,s growth doubl:ed,es,ing tripl:ed,es,ing quadrupled halved cut"
    " surg:e,ed,es,ing soar:,ed,s,ing plung:e,ed,es,ing plummet:,ed,s,ing skyrocket:,ed,s,ing spik:e,ed,es,ing"
    " jump:ed,s climb:ed,s,ing shrank shrunk shrink:,ing,s slump:,ed,s tumbl:e,ed,es,ing dwindl:e,ed,es,ing"
    " uptick:,s downturn trend:,s,ing worsen:,ed,s,ing improv:e,ed,es,ing reduc:e,ed,es,ing,tion"
    " outpac:e,ed,es,ing exceed:,ed,s,ing compared relative rise record time crime murder homicide"
    " poverty unemployment inflation overdose"
)
_CAUSAL_GATE = _forms(
    "due because lead:,s,ing led caus:e,ed,es,ing result:,ed,s,ing consequence thanks owing contribut:e,ed,es,ing"
    " fuel:,ed,led,s,ing driven blam:e,ed,es,ing responsible attributed stem:,s,med,ming trigger:,ed,s,ing"
    " consequently therefore means turn linked cover rise emboldened safer safe dangerous"
)
_OFFICIAL_GATE = _forms(
    "filed sued sues suing lawsuit lawsuits signed vetoed enacted ratified repealed detained deported arrested"
    " indicted charged convicted sentenced acquitted pardoned impeached subpoenaed prosecuted extradited fined"
    " sanctioned ruled ruling deemed struck blocked testified withheld withhold withholds withholding"
    " threatened cut cuts cutting froze freezes frozen pulled revoked rescinded passed executive issued ordered"
    " banned deployed raided investigated launched conducted declared appointed nominated confirmed approved"
    " voted annul annulled overturned upheld injunction indictment warrant detainer detainers raid raids"
)
_PREDICTION_GATE = _forms(
    "will won ll shall going gonna pledg:e,ed,es,ing promis:e,ed,es,ing vow:,ed,s,ing plan:,s,ned,ning"
    " intend:,s,ed expect:,s,ed forecast:,s,ed predict:,s,ed,ing projected set about likely"
    " threaten:,s,ed next coming would"
)

# Words that on their own make the category fire (the regex would match them anyway), so the
# regex only runs for the context-dependent cues ("more than", "due to", "filed a").
_COMPARISON_WORDS = _forms(
    "larger smaller bigger greater safer safest worse worst better best faster slower cheaper costlier deadlier"
    " deadliest richer poorer stronger weaker wider narrower longer shorter busier riskier healthier younger older"
    " highest lowest largest smallest biggest greatest most least fastest rising rises rose risen"
    " increas:e,ed,es,ing decreas:e,ed,es,ing declin:e,ed,es,ing drop:,ped,s,ping fell fall:,en,ing,s grew"
    " grow:,ing,n,s growth doubl:ed,es,ing tripl:ed,es,ing quadrupled halved surg:e,ed,es,ing soar:,ed,s,ing"
    " plung:e,ed,es,ing plummet:,ed,s,ing skyrocket:,ed,s,ing spik:e,ed,es,ing jump:ed,s climb:ed,s,ing shrank"
    " shrunk shrink:,ing,s slump:,ed,s tumbl:e,ed,es,ing dwindl:e,ed,es,ing uptick:,s downturn trend:,s,ing"
    " worsen:,ed,s,ing improv:e,ed,es,ing reduc:e,ed,es,ing,tion outpac:e,ed,es,ing exceed:,ed,s,ing"
)
_CAUSAL_WORDS = _forms(
    "because caus:e,ed,es,ing consequently therefore emboldened fuel:,ed,led,s,ing trigger:,ed,s,ing"
)
_OFFICIAL_WORDS = _forms(
    "filed sued sues suing lawsuit lawsuits signed vetoed enacted ratified repealed detained deported arrested"
    " indicted convicted sentenced acquitted pardoned impeached subpoenaed prosecuted extradited fined sanctioned"
    " ruled ruling blocked testified ordered banned deployed raided investigated appointed nominated approved"
    " annul annulled overturned upheld injunction indictment warrant detainer detainers raid raids"
)
_PREDICTION_WORDS = _forms("shall gonna pledg:e,ed,es,ing promis:e,ed,es,ing vow:,ed,s,ing forecast:,s,ed predict:,s,ed,ing")


def _fires(words: set[str], direct: frozenset[str], gate: frozenset[str], pattern: re.Pattern[str], sentence: str) -> bool:
    if not words.isdisjoint(direct):
        return True
    return not words.isdisjoint(gate) and pattern.search(sentence) is not None

_CURLY_QUOTE = re.compile(r"“([^“”]*)”")
_STRAIGHT_QUOTE = re.compile(r'(?<![\w])"([^"]*)"')
_SINGLE_QUOTE = re.compile(r"‘([^‘]*?)’(?![A-Za-z])")


def is_quoted_speech(content: str) -> bool:
    """True if the text between quotation marks reads as someone's words, not a scare quote or title."""
    words = content.split()
    if len(words) < 3:
        return False
    # A title ("The Howie Carr Show") has every word capitalised; speech does not.
    return not all(w[:1].isupper() or not w[:1].isalpha() for w in words)


def _detect_quote(sentence: str) -> bool:
    opens = sentence.count("“")
    closes = sentence.count("”")
    if opens != closes:
        return True
    if opens and any(is_quoted_speech(m.group(1)) for m in _CURLY_QUOTE.finditer(sentence)):
        return True
    straight = sentence.count('"')
    if straight:
        if straight % 2:
            return True
        if any(is_quoted_speech(m.group(1)) for m in _STRAIGHT_QUOTE.finditer(sentence)):
            return True
    if "‘" in sentence:
        return any(is_quoted_speech(m.group(1)) for m in _SINGLE_QUOTE.finditer(sentence))
    return False


def _is_statistic(sentence: str, quantities: Sequence[Quantity], words: set[str]) -> bool:
    for q in quantities:
        if q.unit == "percent" and q.value == 100.0 and q.hedge == "exact" and _INTENSIFIER_AFTER.match(sentence, q.end):
            continue
        return True
    return not words.isdisjoint(_STATISTIC_GATE) and _STATISTIC.search(sentence) is not None


def classify_claim(
    sentence: str,
    *,
    has_quote: bool | None = None,
    quantities: Sequence[Quantity] | None = None,
) -> tuple[str, list[str]]:
    if quantities is None:
        quantities = parse_quantities(sentence)
    if has_quote is None:
        has_quote = _detect_quote(sentence)
    words = set(_TOKENS.findall(sentence.lower()))
    found = {
        "numeric": _is_statistic(sentence, quantities, words),
        "comparison": _fires(words, _COMPARISON_WORDS, _COMPARISON_GATE, _COMPARISON, sentence),
        "causal": _fires(words, _CAUSAL_WORDS, _CAUSAL_GATE, _CAUSAL, sentence),
        "official_action": _fires(words, _OFFICIAL_WORDS, _OFFICIAL_GATE, _OFFICIAL_ACTION, sentence),
        "prediction": _fires(words, _PREDICTION_WORDS, _PREDICTION_GATE, _PREDICTION, sentence),
        "quote": has_quote,
    }
    matches = [t for t in _PRIORITY if found[t]]
    if not matches:
        return "other", ["other"]
    if found["prediction"] and not found["numeric"] and matches[0] != "prediction":
        modal = _FUTURE_MODAL.search(sentence)
        if modal is not None:
            cues = (_COMPARISON.search(sentence), _CAUSAL.search(sentence), _OFFICIAL_ACTION.search(sentence))
            starts = [m.start() for m in cues if m is not None]
            if starts and modal.start() < min(starts):
                matches.remove("prediction")
                matches.insert(0, "prediction")
    return matches[0], matches
