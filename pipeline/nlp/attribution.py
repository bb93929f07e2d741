"""Who asserts each sentence of a news article: a quoted speaker, a reported speaker, or the outlet.

``attribute_sentences(article_text, spans, outlet=..., author=...)`` returns one
:class:`Attribution` per sentence span.  Rule-based and stdlib-only.

How it works:

1. **Quote regions** are found over the whole article, not per sentence: from an opening
   “ (or ") to its closing mark, across sentence boundaries.  A quotation left open at the
   end of a paragraph ends there (news style re-opens it in the next paragraph).  A straight
   " is an opening or closing mark by its neighbours (after a space and before a word it
   opens), so a quotation re-opened without closing (``crowd. "There's``) does not flip
   every later pair.  Scare quotes and titles (fewer than three words, or every word
   capitalised) are not regions.
2. **People** are collected from the article: "Acting ICE Director Todd Lyons",
   "Boston Mayor Michelle Wu", "mayoral candidate Josh Kraft", "President Trump"
   (a title word before a capitalised name), or a two-to-four-word name that starts with a
   known first name.  Later "Lyons", "Wu" or "the mayor" resolve to them.  The longest title
   seen is kept; party labels ("Democratic", "left-wing") are not part of a title, and a
   title never reaches back past the start of its sentence ("... in May. Mr Blair": "Mr").
3. **A region's speaker** comes from, in order: the cue right after it (”, he said /
   ,” Lyons added / ,” said Lyons), the cue before it in the same sentence
   (Lyons added, “ / Lyons said then: “ / ..., saying Boston “), the previous region in the
   same paragraph (“A,” he said. “B.”), a region that continues from an unclosed paragraph
   before it or fills the whole paragraph, and finally the next region in the same
   paragraph.  Every sentence that overlaps the region gets that speaker.
4. **Pronouns** ("he said", "she said Tuesday") resolve to the most recent person of a compatible
   gender who was a *subject* (started a clause or spoke) outside quotations, else to
   the most recent compatible person mentioned (never a name in a byline or credit line:
   "By Nick Assinder", "... contributed to this story").  Gender comes from a first-name list
   and gendered titles, and is learnt when a pronoun resolves to a person of unknown gender.
   An office that opens a clause ("..., the prime minister hailed ...") is such a subject too:
   whoever was seen holding it, else the office as written, when the person before it holds
   another title (a description, "the Swiss star", is left to the names around it).
5. **Only who says it speaks**: a say-verb inside a subordinate clause ("... repaid £500,000
   to Lord Ashcroft after he predicted an election defeat", "the 2.5% which the French
   government had predicted", "suspended after the committee said his conduct had fallen
   “...”") makes its subject the speaker of that clause, not of the sentence, which stays
   the article's unless its main clause has a speaker of its own. Not when the main clause
   only dates the news ("His comments come after the government announced ..."), when the
   verb opens a quotation ("when asked if he would stay Owen said: “"), in a concessive
   clause ("While he said ..., he thought ...") or right after the subordinator ("after
   claiming"). A quotation that follows another person's reported sentence is that
   person's, not the earlier quotation's speaker's.
6. **Kinds**: a sentence that starts inside a quotation or is mostly quoted text is
   ``direct_quote``.  A narrative sentence that embeds a partial quotation, or reports speech
   ("Wu said Boston has...", "..., according to acting ICE Director Todd Lyons",
   "..., Lyons said."), is ``reported``.  Everything else is ``article``, with speaker
   ``author`` (else ``outlet``, else "").  A quoted sentence whose speaker cannot be found
   stays ``direct_quote`` with speaker "" when it starts inside the quotation, and falls
   back to reported/article detection when it only embeds it.

Speakers that are groups or organisations ("Officials say...", "..., police said.",
"Scotland Yard said", "The Tories claim") are returned as written, with an empty title;
so are roles nobody in the article holds ("The chancellor said").  "A spokeswoman for
Chelsea" is "Chelsea spokeswoman", and a gendered role is what a following "she"/"he"
refers to.  A lower-case description before a name is its title ("UK broadcaster Virgin
Radio"); a name in an appositive after a role is the speaker ("The director of the film,
Vinod Pande, says"); "the 21-year-old" is whoever last opened a clause in the paragraph.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass, field

from pipeline.nlp.claim_types import is_quoted_speech

__all__ = ["Attribution", "attribute_sentences"]


@dataclass(frozen=True, slots=True)
class Attribution:
    speaker: str
    title: str
    kind: str  # "direct_quote" | "reported" | "article"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MALE = _words(
    "aaron adam adrian alan albert alex alexander andrew andy anthony antonio arthur austin barack ben benjamin bernie"
    " bill billy bob bobby brad bradley brandon brett brian bruce bryan carl carlos charles charlie chris christopher"
    " chuck clarence colin craig dan daniel danny dave david dennis derek dick don donald doug douglas dwight ed eddie"
    " edward eric ernest eugene frank fred gabriel gary gavin george gerald glenn gordon greg gregory harold harry henry"
    " howard howie hunter ian jack jacob jake james jamie jason jay jd jeff jeffrey jeremy jerome jerry jim jimmy joe joel"
    " john johnny jon jonathan jordan jose joseph josh joshua juan justin keith ken kenneth kevin kyle larry lawrence lee"
    " leonard louis luis marco marcus mark martin matt matthew michael mike mitch mitt nathan neil nicholas nick noah"
    " oliver patrick paul pete peter phil philip ralph randy ray raymond richard rick robert roger ron ronald ross roy"
    " russell ryan sam samuel scott sean stephen steve steven ted terry thomas tim timothy todd tom tommy tony travis"
    " troy tyler victor vincent walter warner wayne william willie zach liam alastair alistair nigel graham iain geoff"
    " boris menzies trevor arsene sven rio clive dominic hugh stuart thierry gareth shane kenny robbie darren gerry"
    " declan kieran rupert giles andre rafael lleyton"
)
_FEMALE = _words(
    "abigail alexandria alice alicia allison amanda amy andrea angela ann anna anne ashley barbara betsy betty beverly"
    " brenda carol caroline catherine cathy charlotte cheryl christina christine claire cynthia dana deborah debra diana"
    " diane donna doris dorothy elaine elise elizabeth ellen emily emma erin evelyn frances gina gloria grace hannah"
    " heather helen hillary holly ilhan jacqueline jane janet janice jean jennifer jessica jill joan joanne joyce judith"
    " judy julia julie karen kamala karine kate katherine kathleen kathy kay kelly kim kimberly kristi kristen laura"
    " lauren linda lisa lori lucy madeline margaret maria marie marilyn martha mary maura maxine megan melania melissa"
    " michelle monica nancy natalie nicole nikki olivia pam pamela patricia patty paula rachel rebecca rose ruth sally"
    " samantha sandra sarah sharon shirley sonia sophia stephanie susan suzanne tammy teresa theresa tiffany tina tulsi"
    " valerie victoria virginia wendy tessa hilary cherie harriet clare estelle jacqui beverley serena venus lindsay"
    " amelie justine svetlana"
)
_MALE_TITLES = _words("mr mr. sir lord king prince spokesman chairman congressman councilman businessman father brother")
_FEMALE_TITLES = _words(
    "mrs mrs. ms ms. miss madam lady queen princess spokeswoman chairwoman congresswoman councilwoman businesswoman"
    " mother sister"
)
# Capitalised words that end a title and directly precede a name ("Director Todd Lyons").
_TITLE_WORDS = _words(
    "director mayor president governor gov gov. senator sen sen. rep rep. representative secretary attorney general"
    " chief commissioner judge justice sheriff officer spokesman spokeswoman spokesperson speaker leader minister"
    " chancellor ambassador administrator superintendent chair chairman chairwoman ceo dr dr. gen gen. col col. capt"
    " capt. lt lt. sgt sgt. mr mr. mrs mrs. ms ms. prof prof. professor councilor councillor councilman councilwoman"
    " congressman congresswoman czar deputy commander agent inspector treasurer auditor comptroller clerk marshal"
    " prosecutor solicitor pope king queen prince princess candidate host reporter correspondent editor columnist"
    " anchor official lawyer analyst economist founder executive strategist pollster historian journalist"
    " commentator activist advocate organizer researcher scientist expert adviser advisor aide manager coordinator"
    " challenger rival lawmaker cardinal bishop rabbi reverend rev rev. pastor coach detective captain lieutenant"
    " sergeant trooper warden boss mp mep msp striker midfielder defender goalkeeper winger skipper actor actress"
    " singer star producer author writer novelist musician rapper presenter comedian film-maker"
)
# Lower-case words allowed inside a title ("acting ICE Director", "mayoral candidate").
_TITLE_MODIFIERS = _words(
    "acting former mayoral radio deputy interim assistant senior chief top presidential gubernatorial congressional"
    " state city federal district county executive special associate vice then-candidate press talk-radio"
    " and of for the on prime shadow home foreign health education culture defence transport environment trade"
    " justice treasury finance junior first affairs"
)
_HONORIFICS = _words("mr mrs ms miss")
_DESCRIPTIVE_ROLES = _words(
    "striker midfielder defender goalkeeper winger skipper player actor actress singer star rapper presenter comedian"
    " novelist musician film-maker writer author"
)
_TITLE_STOP = _words(
    "The A An But And In At On Last Then Meanwhile When While Yesterday Today Tomorrow Former's Democratic Republican Both"
    " Democrat GOP Conservative Liberal Progressive Independent Monday Tuesday Wednesday Thursday Friday Saturday"
    " Sunday January February March April May June July August September October November December This That"
    " These Those After Before Since Although Though If As According"
)
_NON_NAME = _words(
    "The A An But And Or In At On Of For To By From With Last Then Meanwhile When While Yesterday Today This That These"
    " Those It He She They We I Many Some Every Each Follow Read Police City State County Federal National Boston"
    " Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August"
    " September October November December America American Americans Democrat Democrats Republican Republicans"
    " Democratic Congress Senate House White Department Act Show Hall Street Guard Court Constitution God"
)
_ORG_SUFFIX = _words(
    "Show Department Act Hall Street Center Centre University College School Party Committee Council House Senate"
    " Court Office Agency Service Services News Times Post Journal Police Guard Administration City County State"
    " Foundation Institute Association Company Inc Corp Group Bank Church Hospital Network Radio Magazine Program"
    " Enforcement Security Patrol Force Army Navy Bureau Commission Board Authority Union Club League Airport Station"
)
_GROUP_NOUNS = _words(
    "officials police authorities critics advocates experts analysts prosecutors residents lawmakers leaders officers"
    " agents spokesperson spokesman spokeswoman spokespeople representatives researchers investigators organizers"
    " activists opponents supporters administration department agency office government city campaign statement"
    " sources witnesses neighbors neighbours protesters democrats republicans aides staff team county state"
    " documents records data report reports study studies polls survey company firm club union organisation"
    " organization ministry"
    # Parties named in the plural are groups, never what "he" or "she" refers to.
    " dems tories conservatives liberals nationalists unionists greens socialists"
)
_PRONOUNS_M = frozenset(("he", "him", "his"))
_PRONOUNS_F = frozenset(("she", "her"))

_CAP = r"(?:[A-ZÀ-ÖØ-Þ]\.(?:[A-Z]\.)*|(?:Mc|Mac|O['’]|D['’])?[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]+(?:-[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]+)?|[A-Z]{2,})"
# A name may hold a lower-case particle between its capitalised words: "Luiz Inacio Lula da Silva".
_RUN = re.compile(rf"(?<![\w.]){_CAP}(?:[ \t]+(?:(?:da|de|di|do|dos|das|van|von|der|den|del|della|le|la|bin)[ \t]+)?{_CAP})*")
_POSSESSIVE_AFTER = re.compile(r"['’]s\b|(?<=s)['’](?!\w)")
_MODIFIER_AFTER = re.compile(
    r"[ \t]+(?:administration|administration['’]s|campaign|era|government|team|White\s+House|supporters|allies|policies"
    r"|policy|presidency|tariffs?|officials)\b"
)
_BYLINE = re.compile(
    r"(?im)^[ \t]*(?:(?:additional\s+)?(?:posted|written|reported|reporting|story|words|compiled|edited|interview)?\s*by"
    r"[ \t]+[A-Z][^\n]{0,80}$|^[^\n]{0,160}\bcontributed\s+to\s+this\s+(?:report|story|article)[^\n]{0,40}$)"
)
_INITIALS = re.compile(r"(?:[A-Z]\.)+")
_PARA_BREAK = re.compile(r"[ \t]*\n\s*")
_NON_SPACE = re.compile(r"\S+")

_SAY_CORE = (
    r"said|says|say|added|adds|told|tells|stated|states|explained|explains|continued|continues|noted|notes|argued"
    r"|argues|claimed|claims|insisted|insists|wrote|writes|asked|asks|warned|warns|acknowledged|admitted|announced"
    r"|declared|replied|responded|answered|recalled|remarked|contended|maintained|suggested|emphasized|emphasised"
    r"|stressed|tweeted|posted|countered|concluded|cautioned|conceded|boasted|complained|quipped|joked|predicted"
    r"|observed|agreed|urged|vowed|promised|pledged|exclaimed|shouted|recounted|wondered|argue|insist|warn|claim"
    r"|admit|stress"
)
_ADV = (
    r"(?:also|later|then|previously|recently|once|had|has|have|is|are|was|were|been|would|will|did|does|do|not|long|"
    r"repeatedly|publicly|privately|often|again|earlier|first|never|further|now|[a-z]{4,}ly)"
)
_TRAIL_CUE = re.compile(
    rf"""[\s,]*(?:
        (?!(?:though|although|while|and|but|because|as|which|who|that|if|when|so|where|after|before)\b)
        (?P<who>[^\s,.;:!?“”"][^,.;:!?“”"\n]{{0,60}}?)\s+(?:{_ADV}\s+){{0,2}}(?:{_SAY_CORE})\b
       |(?:{_SAY_CORE})\s+(?P<who2>[^,.;:!?“”"\n]{{1,60}}?)\s*(?:[,.;:!?]|$)
    )""",
    re.VERBOSE,
)
_TRAIL_CUE_APPOSITIVE = re.compile(
    rf"[ \t]*,?[ \t]*(?P<who>[A-Z][\w’'-]+(?:[ \t]+(?:[A-Z][\w’'-]+|de|van|von|da|di|du|le|la)){{1,3}}),[ \t]*"
    rf"(?P<role>(?:an?[ \t]+|the[ \t]+)?(?:[^,.;:!?“”\"\n]|\.(?=\S)){{3,100}}?),?[ \t]+(?:{_SAY_CORE})\b"
)
# Stricter cue used to accept a short quotation ("No," he said.) as speech.
_SHORT_TRAIL_CUE = re.compile(
    rf"[ \t]*(?:(?:he|she|they|[A-Z][\w’'-]+(?:[ \t]+[A-Z][\w’'-]+){{0,2}}|the[ \t]+[a-z]+)[ \t]+(?:{_SAY_CORE})\b"
    rf"|(?:{_SAY_CORE})[ \t]+[A-Z])"
)
_LEAD_SAY = re.compile(
    rf"\b(?:{_SAY_CORE}|saying|adding|telling|noting|explaining|arguing|claiming|warning|insisting|writing|asking"
    r"|calling|called|calls|accused|accusing|accuses|describing|described|describes|pointed\s+out|fired\s+back"
    r"|shot\s+back|put\s+it|swore|swears|vowing|promising|pledging)\b"
)
_LEAD_CUE_END = re.compile(rf"\b(?:{_SAY_CORE})(?:\s+\w+)?\s*[:,]\s*$")
_REPORT_SAY = (
    r"said|says|say|(?:added|adds)(?=\s+that\b|\s*[,:“\"]|\s*$)|told|tells|stated|explained|noted|notes|argued|argues|claimed|claims|insisted|insists"
    r"|acknowledged|admitted|announced|declared|warned|warns|wrote|writes|maintained|maintain|maintains|contended"
    r"|contend|contends|suggested|stressed|emphasized|asked|accused|accusing|accuses|pointed\s+(?:out|to)|promised"
    r"|pledged|vowed|predicted|believes|believe|testified\s+that|estimated|estimates|alleged|alleges|alleging"
    r"|conceded|countered|complained|recalled|reported\s+that|claim(?=\s+(?:that\s+)?[a-z])|accuse|highlighted"
    # "Kirsty Williams called the new target “hugely unambitious”": her words for it.
    r"|called(?=\s+(?:the|a|an|his|her|their|its|this|that|it|him|them)\b[^.;“”\"]{0,50}[“\"])"
    # "The MPs found the £456m system was “nowhere near being fully functional”": a finding
    # in the finders' words.
    r"|found(?=\s+(?:that\s+)?[^.;“”\"]{0,80}?\b(?:was|were|is|are|had|has)\s+[“\"])"
)
_REPORT_VERB = re.compile(rf"\b(?:{_REPORT_SAY})\b")
# A say-verb whose clause opens with a subordinator ("... after he said the party could not
# win", "the 2.5% which the French government had predicted") belongs to the subordinate
# clause: its subject said that clause, not the sentence. Checked on the text from the
# clause's last boundary (a comma, a dash, a colon) to the verb. Concessive clauses ("While
# he said X, he thought Y") are left out: their speaker is usually the sentence's too.
_SUBORDINATE_CLAUSE = re.compile(
    r"\b(?P<word>after|before|when|whenever|because|since|until|till|if|unless|which|whom|where)\b"
    r"(?:(?![ \t]-[ \t])[^,;:—–“”\"])*$",
    re.IGNORECASE,
)
# "His comments come after the government announced ...": the main clause only dates the
# news, so the subordinate clause's speaker is the sentence's.
_NEWS_PEG_BEFORE = re.compile(r"\b(?:comes?|came|follows?|followed)(?:\s+\w+){0,2}\s*$", re.IGNORECASE)


# A say-verb that opens a quotation ("... when asked if he would stay Owen said: “...") is
# the main clause's, however long the clause before it.
_OPENS_QUOTATION = re.compile(r"\w+(?:[ \t]+\w+)?[ \t]*(?::|,?[ \t]*[“\"])")


_PRONOUN_TAG = re.compile(r"[,.!?]?[”\"’]?[ \t]*(he|she)[ \t]+\w+")
_NOUN_BEFORE = re.compile(r"\b(?:the|a|an|his|her|its|their|our|these|those|this|that|such)[ \t]+$", re.IGNORECASE)


def _subordinate(text: str, start: int, verb_start: int) -> re.Match[str] | None:
    """The subordinator whose clause holds the say-verb at ``verb_start``, if any."""
    m = _SUBORDINATE_CLAUSE.search(text, start, verb_start)
    if m is None or _NEWS_PEG_BEFORE.search(text, start, m.start()) is not None:
        return None
    if m.group("word")[0].isupper() and text[start:m.start()].strip():
        return None  # a capital inside the sentence is a title: "the singer of Because the Night told"
    if _OPENS_QUOTATION.match(text, verb_start) is not None:
        return None
    if not text[m.end("word"):verb_start].strip():
        return None  # "Souness reopened the dispute after claiming ...": the main clause's subject speaks
    return m


_ACCORDING = re.compile(r"\baccording\s+to\s+(?P<who>[^,.;:!?“”\"\n]{2,80}?)\s*(?:[,.;:!?]|$)", re.IGNORECASE)
_TRAIL_REPORT = re.compile(
    rf"""(?:,(?!\d)|(?<!\d),|—|--)\s*(?:
        (?P<who>[^,;:“”"—]{{1,60}}?)\s+(?:{_ADV}\s+){{0,2}}(?:{_REPORT_SAY})\b
       |(?:said|says|added|argued|insisted|claimed|warned|admitted|explained|noted|stressed|conceded)\s+(?P<who2>[^,;:“”"—]{{2,60}}?)
    )[^,;“”"]{{0,40}}?(?:,\s*[A-Z][^,;“”"]{{0,40}}?)?[.!?]?[”"’]?\s*$""",
    re.VERBOSE,
)
# ", Oxfam says in a report, Paying the Price.": the report's title may follow the tag.
_DET_START = re.compile(r"^(?:(?:and|but|though|while|so|yet|then|meanwhile)\s+)*(?:the|a|an)\s+")
_INDEFINITE_START = re.compile(r"^(?:(?:and|but|though|while|so|yet|then|meanwhile)\s+)*an?\s+")
_LEADING_TIME = re.compile(
    r"^(?:(?:on|last|this|by|earlier|later)\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday"
    r"|today|tonight|earlier|later|now|separately|week|month|year|night|morning)\s+(?=[A-Z])",
    re.IGNORECASE,
)
_AGE = re.compile(r"\d{1,3}-year-old")
_NAME_PARTICLES = _words("de da di du van von der den del della la le bin al dos das")
_NOT_IN_ORG_NAME = _words(
    "The A An But And Or In At On For To By From With Last Then Meanwhile When While Yesterday Today This That"
    " These Those It He She They We I Many Some Every Each Follow Read Monday Tuesday Wednesday Thursday Friday"
    " Saturday Sunday"
)
_POSSESSIVE_DETS = _words("his her their its")
_NOT_IN_DESCRIPTION = _words(
    "of by for to from in on at with the a an and or but as than that which who whose when where while after"
    " before since this these those it its he she they his her their said says say told also all both"
)
_LEADING_CONJUNCTIONS = re.compile(r"^(?:(?:and|but|so|yet|then|though|while)\s+)+")
_SPOKESPERSON_FOR = re.compile(
    r"(?i:(?P<role>spokes(?:man|woman|person)|representative|lawyer|source)\s+(?:for|from|at)\s+(?:the\s+)?)"
    r"(?P<org>[A-Z][\w’'&.-]*(?:\s+(?:of\s+|and\s+|for\s+|the\s+)*[A-Z][\w’'&.-]*){0,5})"
)
_NAMEISH = re.compile(r"[A-Z][\w’'-]+(?:\s+(?:[A-Z][\w’'-]+|de|van|von|da|di|du|le|la)){1,3}")
# After an inverted verb: a name, a determiner, or a short description before a name
# ("said market analyst Datamonitor"); "said they were ..." names nobody.
_INVERTED_START = re.compile(r"[A-Z]|(?:the|a|an|his|her|its|their)\s|(?:[a-z][\w-]*\s+){1,3}[A-Z]")
_PASSIVE_BEFORE = re.compile(r"\b(?:is|are|was|were|been|being|be)\s+$")
_INVERTED_SPEAKER = re.compile(
    r"(?P<who>[^,;:“”\"—.!?]+?)(?=\s+(?:on|in|at|last|this|yesterday|today|earlier|later|after|before|when|while)\b|\s*[,;:.!?”\"’]|\s*$)"
)
_TRAILING_ADV = re.compile(rf"(?:\s+{_ADV})+\s*$")
_ADV_WORD = re.compile(_ADV)
_LAST_WORD = re.compile(r"\s+(\S+)$")
_APPOSITIVE_END = re.compile(r",\s*[^,]{1,80},\s*$")
_INTRO_SUBJECT = re.compile(r"^[^,“”\"]{0,80},\s*$")
_NAME_BEFORE_ROLE = re.compile(r"(?:^|[.;:]\s+|\b(?:and|but)\s+)(?P<name>[A-Z][\w’'-]+(?:\s+[A-Z][\w’'-]+){1,3}),\s*$")
# A word that can be someone's first name: capitalised letters, no initials or hyphens.
_GIVEN_NAME = re.compile(r"[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]{2,}")
_BUT_CLAUSE = re.compile(r"\s*but\s+\S")
# The end of a speech tag: ", he claimed," or ", he said."
_TAG_END = re.compile(r"\s*(?:[,.;]|$)")
# "claiming the men's 800m" wins it: claiming says something only before a clause.
_PARTICIPLE_SAY = re.compile(
    r",\s*(?:saying|adding|arguing|insisting|warning|pointing\s+(?:out|to)|claiming(?=\s+(?:that|he|she|it|they|we|there)\b))\b"
)
# The subject that opens a sentence, up to its verb: an auxiliary or a past tense.
_MAIN_SUBJECT = re.compile(
    r"(?P<np>(?:(?:The|A|An)\s+)?[A-Z][\w’'-]*(?:\s+[\w’'-]+){0,5}?)\s+(?:(?:has|have|had|was|is)\s+)?[a-z]+ed\b"
)
_WORD_AFTER_QUOTE = re.compile(r"[ \t]+\w")
_COMMA_AFTER = re.compile(r"[ \t]*,")
_CAPITALISED_LEAD = re.compile(r"(?:[A-Z][\w’'-]*\s+){1,3}")
# An office that opens a clause and does something ("Appearing together at a poster launch,
# the prime minister hailed ...", "The Tory leader has said ..."): a person a later "he"/"she"
# may refer to, though the article never names them there.
_ROLE_SUBJECT = re.compile(
    r"(?:[^,“”\"]{0,80},\s*)?(?P<np>[Tt]he\s+(?:[\w-]+\s+){0,3}?(?P<title>[a-z][\w-]*))"
    r"\s+(?:(?:has|had|was|is|would|will)\s+)?[a-z]+(?:ed|s)\b"
)
_LEADING_DETS = re.compile(r"^(?:(?:and|but|though|while|so|yet|then|meanwhile|the|a|an)\s+)+", re.IGNORECASE)
# An intro clause before the speaker ("At a rally Tuesday, Wu said") must look adverbial;
# "Officials upped the pressure, though critics say" is the outlet's own claim.
_INTRO_STARTERS = _words(
    "at in on during after before meanwhile last earlier later speaking asked separately still however but and also"
    " yesterday today tonight from with without since when while in an interview on monday tuesday wednesday"
    " thursday friday saturday sunday this for by according addressing writing"
)
_ADV_EXCEPTIONS = _words("family italy ally rally supply assembly reply belly bully july holly emily kelly lily molly sally")


_QUOTE_OPEN_AFTER = frozenset("([{—–-/")
_QUOTE_CLOSE_BEFORE = frozenset(".,;:!?)]}—–-")


def _straight_quote_role(text: str, pos: int) -> str:
    """"open", "close" or "" (either) for the straight quote at ``pos``, from its neighbours.

    Counting straight quotes pairs them wrongly when a quotation runs on into a second
    one without closing (news style: ``said: "It's a shame. "There's big rivalry."``);
    a quote after a space and before a word opens, one after a word and before a space
    or punctuation closes.
    """
    before = text[pos - 1] if pos > 0 else " "
    after = text[pos + 1] if pos + 1 < len(text) else " "
    opens = (before.isspace() or before in _QUOTE_OPEN_AFTER) and not (after.isspace() or after in _QUOTE_CLOSE_BEFORE)
    closes = not before.isspace() and (after.isspace() or after in _QUOTE_CLOSE_BEFORE)
    if opens and not closes:
        return "open"
    if closes and not opens:
        return "close"
    return ""


@dataclass(slots=True)
class _Person:
    name: str
    title: str = ""
    gender: str = ""  # "m" | "f" | ""
    group: bool = False
    tokens: tuple[str, ...] = field(default_factory=tuple)


@dataclass(slots=True)
class _Region:
    start: int  # offset of the opening mark (or paragraph start when it is missing)
    end: int  # offset just past the closing mark (or paragraph end when unclosed)
    para: int
    unclosed: bool


@dataclass(slots=True)
class _Mention:
    start: int  # title start when a title precedes the name
    name_start: int
    end: int
    person: _Person
    possessive: bool
    modifier: bool


def _is_title_word(low: str) -> bool:
    """A title word, also after a prefix: "co-chairman", "vice-president", "ex-minister"."""
    return low in _TITLE_WORDS or low.rpartition("-")[2] in _TITLE_WORDS


def _speaks_as_it(person: _Person) -> bool:
    """An organisation or a document ("Swiss Re", "the Home Office", "his report"), not a
    person ("he"/"she") nor a plural group ("officials", "analysts": "they")."""
    if person.gender or person.title:
        return False
    last = person.tokens[-1] if person.tokens else person.name.rsplit(None, 1)[-1]
    if person.group:
        low = last.lower()
        return not (low in ("police", "staff", "people") or (low.endswith("s") and (low in _GROUP_NOUNS or low[:-1] in _GROUP_NOUNS)))
    first = person.tokens[0].lower() if len(person.tokens) > 1 else ""
    return first not in _MALE and first not in _FEMALE


def _is_group_word(word: str) -> bool:
    low = word.lower()
    return low in _GROUP_NOUNS or (low.endswith("s") and low[:-1] in _GROUP_NOUNS)


# What an organisation publishes speaks for it: "Labour's new posters", "the party's manifesto".
_OWNED_DOCUMENT = re.compile(
    r"(?P<owner>[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,3})['’]s\s+(?:(?:new|latest|own|election|campaign)\s+)*"
    r"(?:posters?|manifesto|leaflets?|adverts?|advertisements?|website|broadcasts?)"
)
# Parties named in the singular ("Labour and the Liberal Democrats have said").
_PARTY_NAMES = _words("labour snp plaid ukip respect veritas sinn fein dup uup")


def _speaks_as_group(word: str) -> bool:
    return _is_group_word(word) or word.lower() in _PARTY_NAMES


# Words that make a title another office: the shadow chancellor is not "the chancellor".
_OTHER_OFFICE = _words("shadow former deputy vice assistant junior ex")


def _holds(held: str, title: str, office: set[str]) -> bool:
    """Whether someone titled `held` holds the office named by the words `office` ending in
    `title` ("Tory shadow chancellor" holds "shadow chancellor", not "chancellor")."""
    words = set(held.lower().split())
    return title in words and not (words & _OTHER_OFFICE) - office


def _role(name: str) -> _Person:
    """A speaker named by role or as a group ("police", "Chelsea spokeswoman", "The chancellor").

    A gendered role ("spokeswoman", "chairman") is someone "she"/"he" can refer to next;
    other roles and groups are not pronoun antecedents.
    """
    last = name.rsplit(None, 1)[-1].lower()
    if last in _FEMALE_TITLES:
        return _Person(name=name, gender="f")
    if last in _MALE_TITLES:
        return _Person(name=name, gender="m")
    return _Person(name=name, group=True)


class _Article:
    """All per-article state; built once per call."""

    def __init__(self, text: str, spans: list[tuple[int, int]]) -> None:
        self.text = text
        self.spans = spans
        self.span_starts = [s for s, _ in spans]
        # Blank lines between paragraphs are one break, so consecutive paragraphs differ by 1.
        breaks = list(_PARA_BREAK.finditer(text))
        self.para_starts = [0] + [m.end() for m in breaks]
        self.para_ends = [m.start() for m in breaks] + [len(text)]
        self.regions = self._find_regions()
        self.region_starts = [r.start for r in self.regions]
        self.persons: list[_Person] = []
        self.by_surname: dict[str, list[_Person]] = {}
        self.mentions: list[_Mention] = []
        self._collect_people()
        self.mention_starts = [m.start for m in self.mentions]
        # (position, order, person, is_subject): who was talked about / spoke, outside quotes.
        self.history: list[tuple[int, int, _Person, bool]] = []
        self._counter = 0
        # A byline or credit line names the writer, who is the article's own voice: nobody
        # a later "he said" refers to, and never a speaker.
        self.bylines = [(b.start(), b.end()) for b in _BYLINE.finditer(text)]
        for m in self.mentions:
            if not m.modifier and self.region_at(m.name_start) is None and not self.in_byline(m.start):
                self._add_history(m.start, m.person, self._is_subject(m))
        self._add_role_subjects()
        self.region_speaker: dict[int, _Person | None] = {}
        self.last_speaker: dict[int, _Person] = {}  # paragraph -> the last person a sentence was attributed to
        self.sentence_speaker: dict[int, _Person] = {}  # sentence -> its speaker, when it has one

    def _add_role_subjects(self) -> None:
        """Offices that open a sentence's clause (_ROLE_SUBJECT) join the history as subjects: the
        most recent person seen with that title, else the office as written ("Prime minister"),
        but only when the last person to open a clause holds another title. A description ("the
        Swiss star", "the writer"), or an office after someone with no title, is most often the
        person just named ("Michael Howard has launched ... The Tory leader said"): left to the
        names around it."""
        for start, end in self.spans:
            m = _ROLE_SUBJECT.match(self.text, start, end)
            if m is None or self.region_at(m.start("np")) is not None:
                continue
            words, title = m.group("np").split()[1:], m.group("title").lower()
            if title in _DESCRIPTIVE_ROLES or not _is_title_word(title) or any(
                not (w[0].isupper() or w.lower() in _TITLE_MODIFIERS or _is_title_word(w.lower())) for w in words[:-1]
            ):
                continue
            pos = m.start("np")
            i = bisect_left(self.history, pos, key=lambda h: h[0])
            before = list(reversed(self.history[max(0, i - 60) : i]))
            office = {w.lower() for w in words}
            # A person with that title, or a role named by it ("Prime minister's official spokesman").
            person = next((h[2] for h in before if _holds(h[2].name if h[2].group else h[2].title, title, office)), None)
            if person is None:
                last = next((h[2] for h in before if h[3] and not h[2].group), None)
                if last is None or not (_words(last.title.lower()) - _HONORIFICS - _TITLE_MODIFIERS):
                    continue
                role = " ".join(words)
                gender = "f" if title in _FEMALE_TITLES else "m" if title in _MALE_TITLES else ""
                person = _Person(name=role[0].upper() + role[1:], gender=gender)
            self._add_history(pos, person, True)

    # ----------------------------------------------------------------- structure
    def in_byline(self, pos: int) -> bool:
        return any(a <= pos < b for a, b in self.bylines)

    def para_of(self, pos: int) -> int:
        return bisect_right(self.para_starts, pos) - 1

    def para_end(self, para: int) -> int:
        return self.para_ends[para]

    def sentence_of(self, pos: int) -> int:
        i = bisect_right(self.span_starts, pos) - 1
        if i >= 0 and pos < self.spans[i][1]:
            return i
        return -1

    def _find_regions(self) -> list[_Region]:
        text = self.text
        regions: list[_Region] = []
        open_pos = -1
        open_char = ""
        for m in re.finditer(r"[“”\"]", text):
            pos = m.start()
            ch = m.group()
            if open_pos >= 0 and self.para_of(pos) != self.para_of(open_pos):
                p = self.para_of(open_pos)
                regions.append(_Region(open_pos, self.para_end(p), p, True))
                open_pos = -1
            role = _straight_quote_role(text, pos) if ch == '"' else ""
            if ch == '"' and open_pos < 0 and role == "close":
                ch = "”"  # closes a quotation opened before the paragraph (handled below)
            elif ch == '"' and open_pos >= 0 and role == "open":
                ch = "“"  # re-opened without closing: “It's a shame ... crowd. "There's ...
            if ch == "“" or (ch == '"' and open_pos < 0):
                if open_pos >= 0:  # re-opened without closing: close the first at this point
                    regions.append(_Region(open_pos, pos, self.para_of(open_pos), True))
                open_pos, open_char = pos, m.group()
            elif open_pos >= 0 and (ch == "”" or open_char == '"'):
                regions.append(_Region(open_pos, pos + 1, self.para_of(open_pos), False))
                open_pos = -1
            elif ch == "”":
                # Closing mark with no opening one: the quotation began at the paragraph start.
                p = self.para_of(pos)
                regions.append(_Region(self.para_starts[p], pos + 1, p, False))
        if open_pos >= 0:
            p = self.para_of(open_pos)
            regions.append(_Region(open_pos, self.para_end(p), p, True))
        real = []
        for r in regions:
            inner = text[r.start:r.end].strip("“”\" \n\t")
            if is_quoted_speech(inner):
                real.append(r)
            elif inner and inner[-1] in ",.!?" and (
                _SHORT_TRAIL_CUE.match(text, r.end, min(len(text), r.end + 80)) is not None
                or _LEAD_CUE_END.search(text, max(0, r.start - 60), r.start) is not None
            ):
                # A short quotation ("No," he said. / Lyons said: "Never.") is still speech.
                real.append(r)
        return real

    def region_at(self, pos: int) -> int | None:
        i = bisect_right(self.region_starts, pos) - 1
        if i >= 0 and pos < self.regions[i].end:
            return i
        return None

    # ----------------------------------------------------------------- people
    def _collect_people(self) -> None:
        text = self.text
        found: list[tuple[int, int, int, _Person]] = []
        runs = list(_RUN.finditer(text))
        for run in runs:
            tokens = run.group().split()
            title_idx = -1
            for i, tok in enumerate(tokens):
                if _is_title_word(tok.lower()):
                    title_idx = i
            name_idx = -1
            if title_idx >= 0 and title_idx + 1 < len(tokens):
                name_idx = title_idx + 1
            else:
                # The last word before the run within 40 characters (what `(\S+)\s*$` finds there).
                before = text[max(0, run.start() - 40) : run.start()].split()
                if before and _is_title_word(before[-1].lower()) and before[-1][0].islower():
                    name_idx = 0  # lower-case title: "mayoral candidate Josh Kraft"
                else:
                    for i, tok in enumerate(tokens):
                        if tok.lower() in _MALE or tok.lower() in _FEMALE:
                            name_idx = i
                            break
            if name_idx < 0:
                continue
            name_tokens = tokens[name_idx:]
            if not 1 <= sum(t not in _NAME_PARTICLES for t in name_tokens) <= 4 or name_tokens[-1] in _ORG_SUFFIX:
                continue
            if any(t in _NON_NAME or t.isupper() for t in name_tokens):
                continue
            titled = title_idx >= 0 or (name_idx == 0 and not (tokens[0].lower() in _MALE or tokens[0].lower() in _FEMALE))
            if len(name_tokens) == 1 and not titled:
                continue
            name_start = run.start() + [o.start() for o in _NON_SPACE.finditer(run.group())][name_idx]
            title, title_start = self._title_before(name_start)
            person = self._register(" ".join(name_tokens), title)
            found.append((title_start if title else name_start, name_start, run.end(), person))
        # Second sweep: every run that names a registered person (surname or full name).
        for run in runs:
            tokens = run.group().split()
            named: _Person | None = None
            for tok in reversed(tokens):
                people = self.by_surname.get(tok)
                if people:
                    named = people[-1]
                    break
            if named is None:
                continue
            if len(named.tokens) == 1 and len(tokens) == 2 and tokens[1] == named.name and _GIVEN_NAME.fullmatch(tokens[0]) and not (
                tokens[0] in _NON_NAME or tokens[0] in _TITLE_STOP or _is_title_word(tokens[0].lower()) or _is_group_word(tokens[0])
                or tokens[0] in self.by_surname
            ):
                # "Vince Cable, the party's Treasury spokesman" and later "Mr Cable": a first name
                # no list holds still makes the full name the one the article gives him.
                named.name, named.tokens = " ".join(tokens), tuple(tokens)
                self.by_surname.setdefault(named.name, []).append(named)
            start = run.start()
            for f in found:
                if f[1] <= start < f[2]:
                    start = f[0]
                    break
            after = run.end()
            possessive = _POSSESSIVE_AFTER.match(text, after) is not None
            modifier = (
                text[max(0, start - 4):start].lower() == "the " or _MODIFIER_AFTER.match(text, after) is not None
            )
            self.mentions.append(_Mention(start, run.start(), after, named, possessive, modifier))
        self.mentions.sort(key=lambda m: m.start)

    def _title_before(self, name_start: int) -> tuple[str, int]:
        """Walk back from a name over title words: "U.S. Attorney General", "acting ICE Director".

        A title never reaches back past the start of the name's sentence or paragraph:
        "... in May. Mr Blair" gives "Mr", not "May. Mr".
        """
        text = self.text
        window_start = max(0, name_start - 120, self.para_starts[self.para_of(name_start)])
        si = self.sentence_of(name_start)
        if si >= 0:
            window_start = max(window_start, self.spans[si][0])
        toks = list(re.finditer(r"\S+", text[window_start:name_start]))
        taken: list[re.Match[str]] = []
        for k in range(len(toks) - 1, -1, -1):
            tok_m = toks[k]
            tok = tok_m.group()
            low = tok.lower()
            if tok[-1] in ",;:!?(“”\"" or tok in _TITLE_STOP or "’" in tok or "'" in tok:
                break
            # Only an abbreviated title ("Gov.", "Sen.") or initials ("U.S.") may end in a
            # period; any other word before a period ends a sentence ("Bond. MGM Vice Chairman").
            if tok.endswith(".") and not (low in _TITLE_WORDS or _INITIALS.fullmatch(tok)):
                break
            if not taken:
                if not _is_title_word(low):
                    break
            elif not (tok[0].isupper() or low in _TITLE_MODIFIERS or _is_title_word(low)):
                break
            elif low == "and" and (not taken[-1].group()[0].isupper() or taken[-1].group().lower().rstrip(".") in _HONORIFICS
                                   or (k > 0 and toks[k - 1].group() in self.by_surname)):
                # "Bill Clinton and singer Harry Belafonte", "Mr Brown and Mr Blair", "Defence
                # Secretary Geoff Hoon and Prime Minister Tony Blair": two people.
                break
            taken.append(tok_m)
        while taken and taken[-1].group().lower() in ("and", "of", "for", "the", "on"):
            taken.pop()
        if not taken:
            return "", name_start
        start = window_start + taken[-1].start()
        end = name_start
        if len(taken) > 1 and taken[0].group().lower().rstrip(".") in _HONORIFICS:
            if any(_is_title_word(t.group().lower()) for t in taken[1:]):
                end = window_start + taken[0].start()  # "deputy prime minister Mr Prescott": the office is the title
            else:
                start = window_start + taken[0].start()  # "in Harrogate Mr Kennedy": just "Mr"
        title = text[start:end].strip()
        return title[0].upper() + title[1:], start

    def _register(self, name: str, title: str) -> _Person:
        tokens = tuple(name.split())
        surname = tokens[-1]
        people = self.by_surname.get(surname, [])
        person = None
        for p in people:
            if p.name == name or len(p.tokens) == 1 or len(tokens) == 1 or p.tokens[0] == tokens[0]:
                person = p
                break
        if person is None:
            person = _Person(name=name, tokens=tokens)
            self.persons.append(person)
            self.by_surname.setdefault(surname, []).append(person)
            if len(tokens) > 1:
                # Full name also resolves by itself ("Michelle Wu" as one run).
                self.by_surname.setdefault(name, []).append(person)
        elif len(tokens) > len(person.tokens):
            person.name, person.tokens = name, tokens
            self.by_surname.setdefault(name, []).append(person)
        if len(title) > len(person.title):
            person.title = title
        if not person.gender:
            first = person.tokens[0].lower() if len(person.tokens) > 1 else ""
            title_words = {w.lower() for w in title.split()}
            if first in _FEMALE or title_words & _FEMALE_TITLES:
                person.gender = "f"
            elif first in _MALE or title_words & _MALE_TITLES:
                person.gender = "m"
        return person

    def _is_subject(self, m: _Mention) -> bool:
        if m.possessive or m.modifier:
            return False
        i = self.sentence_of(m.start)
        if i < 0:
            return False
        before = self.text[self.spans[i][0]:m.start].lstrip()
        # "Liberal Democrat leader Charles Kennedy attacked ...": capitalised words before a
        # title are part of the description, so the person still opens the sentence.
        return before == "" or _INTRO_SUBJECT.match(before) is not None or _CAPITALISED_LEAD.fullmatch(before) is not None

    # ----------------------------------------------------------------- resolution
    def _add_history(self, pos: int, person: _Person, subject: bool) -> None:
        self._counter += 1
        insort(self.history, (pos, self._counter, person, subject), key=lambda h: (h[0], h[1]))

    def resolve_pronoun(self, pronoun: str, pos: int, reported_from: int | None = None) -> _Person | None:
        """Who "he" or "she" at `pos` is: the nearest person of that gender before it, one who
        opened a clause first. `reported_from`: where the words reported by this pronoun's
        speech tag begin ("Mr Blair has failed, he claimed"): nobody named there is the speaker."""
        if pronoun in _PRONOUNS_M:
            gender = "m"
        elif pronoun in _PRONOUNS_F:
            gender = "f"
        else:
            return None
        i = bisect_left(self.history, pos, key=lambda h: h[0])
        fallback = None
        for j in range(i - 1, max(-1, i - 60), -1):
            at, _, person, subject = self.history[j]
            if person.group or person.gender not in ("", gender) or (reported_from is not None and at >= reported_from):
                continue
            if subject:
                fallback = person
                break
            if fallback is None:
                fallback = person
        if fallback is not None and not fallback.gender:
            fallback.gender = gender
        return fallback

    def _persons_in(self, a: int, b: int) -> list[_Mention]:
        i = bisect_left(self.mention_starts, a)
        out = []
        while i < len(self.mentions) and self.mentions[i].start < b:
            m = self.mentions[i]
            if m.end <= b and not m.possessive and not m.modifier:
                out.append(m)
            i += 1
        return out

    def resolve_phrase(self, a: int, b: int, reported_from: int | None = None) -> _Person | None:
        """Resolve the speaker named by text[a:b] ("Lyons", "he", "the mayor", "officials");
        `reported_from` as resolve_pronoun's."""
        raw = self.text[a:b]
        stripped = raw.strip()
        if not stripped:
            return None
        low = stripped.lower()
        bare = _LEADING_CONJUNCTIONS.sub("", low)
        if bare in _PRONOUNS_M or bare in _PRONOUNS_F:
            # "And he argued ...": the conjunction does not change who "he" is.
            return self.resolve_pronoun(bare, a + len(low) - len(bare), reported_from)
        low = bare if bare in ("they", "we", "i", "it", "you", "this", "that") else low
        if low == "it":
            # "..., it said.": the organisation or document that spoke in the sentence before.
            previous = self.sentence_speaker.get(self.sentence_of(a) - 1)
            return previous if previous is not None and _speaks_as_it(previous) else None
        if low == "they":
            # "The Tories have promised ... They say they can save £4bn": the group that spoke
            # in the sentence before.
            previous = self.sentence_speaker.get(self.sentence_of(a) - 1)
            return previous if previous is not None and previous.group else None
        if low in ("we", "i", "you", "this", "that"):
            return None
        mentions = self._persons_in(a, b)
        if mentions:
            return mentions[0].person
        core = _LEADING_TIME.sub("", _LEADING_DETS.sub("", stripped))  # "On Thursday Rangers said"
        had_det = _DET_START.match(low) is not None
        words = core.split()
        if not words or len(words) > 8:
            return None
        if had_det and len(words) == 1 and _AGE.fullmatch(words[0]):
            # "The 21-year-old told a news conference": the player the story is about.
            return self._recent_subject(a)
        spokes = _SPOKESPERSON_FOR.fullmatch(core)
        if spokes is not None:
            # "a spokeswoman for Chelsea" speaks for Chelsea: "Chelsea spokeswoman".
            return _role(f"{spokes.group('org')} {spokes.group('role').lower()}")
        last = words[-1].lower()
        if had_det and last in _TITLE_WORDS and len(words) <= 4:
            # "the mayor", "the acting director", "the Veritas leader": the most recent person
            # with that title, else the role as written (someone speaks, not the outlet). "A
            # Labour Party spokesman" is someone not named before: the role as written.
            i = bisect_left(self.history, a, key=lambda h: h[0]) if _INDEFINITE_START.match(low) is None else 0
            for j in range(i - 1, max(-1, i - 60), -1):
                person = self.history[j][2]
                if not person.group and last in person.title.lower().split():
                    return person
            # "Henry will captain the side ... And the striker said": the person the paragraph
            # is about, when nothing says they hold another office. Only for descriptions: an
            # office ("the chancellor") or "a spokesman" is often someone else.
            recent = self._recent_subject(a) if bare.startswith("the ") and last in _DESCRIPTIVE_ROLES else None
            if recent is not None and len(words) == 1 and not (_words(recent.title.lower()) - _HONORIFICS - _TITLE_MODIFIERS):
                return recent
            if not any(w in _NON_NAME for w in words[:-1]):
                return _role(core[0].upper() + core[1:])
        owned = _OWNED_DOCUMENT.fullmatch(core)
        if owned is not None:
            # "Labour's new posters say ...": the party says it.
            return self.resolve_phrase(a + raw.index(owned.group("owner")), a + raw.index(owned.group("owner")) + len(owned.group("owner")))
        if last in _GROUP_NOUNS or (last.endswith("s") and last[:-1] in _GROUP_NOUNS):
            # "In a joint statement the firms" -> "firms"; "his management company" -> "management company".
            cuts = [
                i for i, w in enumerate(words) if w.lower() in _NOT_IN_DESCRIPTION and w.lower() not in _POSSESSIVE_DETS
                and not (w == "of" and 0 < i < len(words) - 1 and words[i - 1][0].isupper() and words[i + 1][0].isupper())
            ]
            while cuts and cuts[-1] > 0 and (
                (words[cuts[-1]] == "and" and _speaks_as_group(words[cuts[-1] - 1]))
                or (words[cuts[-1]] == "the" and cuts[-1] > 1 and words[cuts[-1] - 1] == "and" and _speaks_as_group(words[cuts[-1] - 2]))
            ):
                # "The Conservatives and Lib Dems insisted", "Labour and the Liberal Democrats
                # have said": two groups speak together.
                cuts.pop()
            return _role(" ".join(words[(cuts[-1] if cuts else -1) + 1:]))
        if all(w[0].isupper() or w in ("of", "and") or w in _NAME_PARTICLES for w in words) and len(words) <= 5:
            people = self.by_surname.get(words[-1])
            if people:
                return people[-1]
            if any(w in _NON_NAME for w in words):
                if words[-1] in _ORG_SUFFIX and not any(w in _NOT_IN_ORG_NAME for w in words):
                    return _role(core)  # "Downing Street", "the White House", "Scotland Yard's" kin
                return None
            title_idx = max((i for i, w in enumerate(words) if w.lower() in _TITLE_WORDS), default=-1)
            name = " ".join(words[title_idx + 1:])
            if not name:
                return None
            return self._register(name, " ".join(words[:title_idx + 1]))
        # A lower-case description before a name: "UK broadcaster Virgin Radio",
        # "security firm Network Box", "tycoon Steve Morgan".
        split = max(i for i, w in enumerate(words) if not (w[0].isupper() or w in _NAME_PARTICLES))
        prefix, tail = words[:split + 1], words[split + 1:]
        if (1 <= len(tail) <= 4 and len(prefix) <= 3 and tail[0] not in _NAME_PARTICLES
                and not any(w.lower() in _NOT_IN_DESCRIPTION for w in prefix) and not any(w in _NON_NAME for w in tail)):
            people = self.by_surname.get(tail[-1])
            if people:
                return people[-1]
            description = " ".join(prefix)
            return self._register(" ".join(tail), description[0].upper() + description[1:])
        return None

    def _recent_subject(self, pos: int) -> _Person | None:
        """The person who last opened a clause, in this paragraph or the sentence before."""
        i = bisect_left(self.history, pos, key=lambda h: h[0])
        para, sentence = self.para_of(pos), self.sentence_of(pos)
        for j in range(i - 1, max(-1, i - 60), -1):
            at, _, person, subject = self.history[j]
            if self.para_of(at) != para and self.sentence_of(at) != sentence - 1:
                return None
            if subject and not person.group:
                return person
        return None

    def speaker_of_region(self, idx: int, depth: int = 0) -> _Person | None:
        if idx in self.region_speaker:
            return self.region_speaker[idx]
        self.region_speaker[idx] = None  # guards the forward look-up against cycles
        person = self._region_cue(idx)
        regions = self.regions
        r = regions[idx]
        if person is None and idx > 0:
            prev = regions[idx - 1]
            prev_speaker = self.speaker_of_region(idx - 1, depth + 1) if depth < 3 else self.region_speaker.get(idx - 1)
            if prev_speaker is not None:
                para_text_before = self.text[self.para_starts[r.para]:r.start].strip()
                whole_para = self.text[r.end:self.para_end(r.para)].strip() == "" and para_text_before == ""
                if prev.para == r.para or (prev.para == r.para - 1 and para_text_before == "" and (prev.unclosed or whole_para)):
                    # “A,” he said. Lord Moynihan said B. “C.”: C is Lord Moynihan's, who spoke last.
                    person = self._speaker_between(prev.end, r.start, r.end) or prev_speaker
        if person is None and depth < 3 and idx + 1 < len(regions):
            nxt = regions[idx + 1]
            same_para = nxt.para == r.para and self.text[r.end:nxt.start].strip() == ""
            continued = r.unclosed and nxt.para == r.para + 1 and self.text[r.end:nxt.start].strip() == ""
            if same_para or continued:
                person = self.speaker_of_region(idx + 1, depth + 1)
        if person is None and self.text[self.para_starts[r.para]:r.start].strip() == "" and self._nothing_after(r):
            # A paragraph that opens with an unattributed quotation goes on with whoever spoke
            # last in the paragraph before ("Wenger insists ..." / "“If you look at my career").
            person = self.last_speaker.get(r.para - 1)
        if person is None and depth > 0:
            # Not known yet from here; looked up again when its own sentence comes, when the
            # region before it has its speaker.
            del self.region_speaker[idx]
            return None
        self.region_speaker[idx] = person
        return person

    def _region_cue(self, idx: int) -> _Person | None:
        text = self.text
        r = self.regions[idx]
        # 1. Cue after the closing mark, inside the sentence that holds it. A quoted noun
        # phrase ('the "bonfire of quangos" New Labour had promised') is followed by its
        # relative clause, not by who spoke it; 'the "fastest growing rate", he said' is speech.
        relative = _NOUN_BEFORE.search(text, max(0, r.start - 12), r.start) and _WORD_AFTER_QUOTE.match(text, r.end)
        if not r.unclosed:
            si = self.sentence_of(r.end - 1)
            limit = self.spans[si][1] if si >= 0 else r.end + 120
            if idx + 1 < len(self.regions):
                limit = min(limit, self.regions[idx + 1].start)
            limit = min(limit, self.para_end(r.para))
            m = _TRAIL_CUE.match(text, r.end, limit)
            if m is not None and relative and _COMMA_AFTER.match(text, m.end()):
                m = None  # the clause ends where the sentence goes on: 'had promised, there had been'
            if m is not None:
                g = "who" if m.group("who") is not None else "who2"
                person = self.resolve_phrase(m.start(g), m.end(g))
                if person is not None:
                    if not person.group:
                        self._add_history(m.start(g), person, True)
                    return person
            # ,” Roy Asher, chief investment officer of Hibernian, told Reuters.
            m = _TRAIL_CUE_APPOSITIVE.match(text, r.end, limit)
            if m is not None:
                role = re.sub(r"^(?:an?|the)\s+", "", m.group("role").strip())
                person = self.resolve_phrase(m.start("who"), m.end("who"))
                if person is not None and not person.group:
                    if person in self.persons and not person.title:
                        person = self._register(person.name, role[0].upper() + role[1:])
                    self._add_history(m.start("who"), person, True)
                    return person
        # 2. Cue before the opening mark, inside the sentence that holds it.
        si = self.sentence_of(r.start)
        lead_start = self.spans[si][0] if si >= 0 else self.para_starts[r.para]
        if idx > 0 and self.regions[idx - 1].end > lead_start:
            lead_start = self.regions[idx - 1].end
        lead = text[lead_start:r.start]
        if lead.strip():
            verbs = list(_LEAD_SAY.finditer(lead))
            if verbs:
                subject_end = lead_start + verbs[-1].start()
                # "... after the committee said his conduct had fallen “": the committee speaks.
                sub = _subordinate(text, lead_start, subject_end) if not _NOUN_BEFORE.search(text, lead_start, subject_end) else None
                person = self._subject_in(sub.end("word") if sub else lead_start, subject_end)
                if person is not None:
                    if not person.group:
                        self._add_history(subject_end, person, True)
                    return person
        return None

    def _subject_in(self, a: int, b: int) -> _Person | None:
        mentions = self._persons_in(a, b)
        if mentions:
            return mentions[0].person
        seg = self.text[a:b]
        m = re.search(r"(?:^|,\s*|\b(?:and|but)\s+)(?P<p>[Hh]e|[Ss]he)\b", seg)
        if m is not None:
            return self.resolve_pronoun(m.group("p").lower(), a + m.start("p"))
        seg = _TRAILING_ADV.sub("", seg)
        if seg.rstrip().endswith(","):
            # "Monfils, who was given a wildcard, said: “...": the name before the appositive.
            seg = _APPOSITIVE_END.sub("", seg.rstrip())
        m = re.search(r"(?P<np>[^,;:]{1,60})\s*$", seg)
        if m is not None:
            person = self.resolve_phrase(a + m.start("np"), a + m.end("np"))
            named = _NAME_BEFORE_ROLE.search(seg, 0, m.start("np"))
            if (person is not None and person not in self.persons and named is not None
                    and not any(w in _NOT_IN_ORG_NAME for w in named.group("name").split())):
                # "Rhodri Glyn Thomas, Plaid Cymru health spokesman said:": the name speaks, the role is its title.
                role = m.group("np").strip()
                return self._register(named.group("name"), role[0].upper() + role[1:])
            return person
        return None

    # ----------------------------------------------------------------- sentences
    def reported_speaker(self, s: int, e: int) -> _Person | None:
        text = self.text
        sent = text[s:e]
        m = _ACCORDING.search(sent)
        if m is not None:
            person = self.resolve_phrase(s + m.start("who"), s + m.end("who"))
            if person is not None:
                return person
        v = next((v for v in _REPORT_VERB.finditer(sent, 0, 160) if _subordinate(sent, 0, v.start()) is None), None)
        if v is not None and _PASSIVE_BEFORE.search(sent, 0, v.start()) is not None:
            v = None  # "About 500 officials are accused of ...": spoken about, not speaking
        if v is not None:
            pre = sent[:v.start()]
            pre_trim = pre.rstrip()
            while True:
                w = _LAST_WORD.search(pre_trim)
                if w is None or not _ADV_WORD.fullmatch(w.group(1)) or w.group(1).lower() in _ADV_EXCEPTIONS:
                    break
                pre_trim = pre_trim[:w.start()]
            appositive: tuple[int, int] | None = None
            if pre_trim.endswith(","):
                # "Kraft, Wu's top challenger, said": drop the appositive, keep the name; it is
                # the name when the head is a role ("The director of the film, Vinod Pande, says").
                am = _APPOSITIVE_END.search(pre_trim)
                if am is not None:
                    inner = pre_trim[am.start() + 1:len(pre_trim) - 1]
                    lead = len(inner) - len(inner.lstrip())
                    appositive = (s + am.start() + 1 + lead, s + len(pre_trim) - 1)
                pre_trim = _APPOSITIVE_END.sub("", pre_trim)
            np_start = pre_trim.rfind(",") + 1
            intro = pre_trim[:np_start]
            np_text = pre_trim[np_start:]
            intro_words = intro.split()
            # "So far that has not been challenged, but independent analysts now claim ...": a
            # clause after ", but" is a main clause with its own subject.
            intro_ok = (not intro_words or len(intro_words) <= 3 or intro_words[0].lower() in _INTRO_STARTERS
                        or _BUT_CLAUSE.match(np_text) is not None)
            if intro_ok and "“" not in intro and '"' not in intro and len(intro) <= 90 and np_text.strip() and len(np_text.split()) <= 8:
                lead = len(np_text) - len(np_text.lstrip())
                # "Mr Blair has failed to tackle these problems, he claimed": the words before
                # the tag are what was said, so Mr Blair is not who "he" is; "After Mr Howard
                # spoke, he said" opens with a clause of its own, where he may be.
                reported = s if intro_words and intro_words[0].lower() not in _INTRO_STARTERS else None
                person = self.resolve_phrase(s + np_start + lead, s + np_start + len(np_text.rstrip()), reported)
                if (
                    appositive is not None
                    and (person is None or person.group or _DET_START.match(np_text.strip().lower()) is not None)
                    and _NAMEISH.fullmatch(text, *appositive)
                ):
                    # "The country's new president, Mikhail Saakashvili, has said": the name says
                    # who the role is, not the last president the article mentioned.
                    person = self.resolve_phrase(*appositive) or person
                named = _NAMEISH.fullmatch(intro.strip().rstrip(",").strip()) if intro.strip().endswith(",") else None
                if named is not None and any(w in _NON_NAME for w in named.group().split()):
                    named = None  # "On Wednesday, the agency said": a time, not a name
                if person is not None and person not in self.persons and named is not None:
                    # "Patricia Sanders, spokeswoman for the DEC, said": the name speaks, the role is her title.
                    role = np_text.strip()
                    person = self._register(named.group(), role[0].upper() + role[1:])
                if person is not None:
                    return person
            elif np_text.strip() in ("he", "she") and _TAG_END.match(sent, v.end()):
                # "Mr Blair has failed to tackle these problems, he claimed, saying ...": a
                # speech tag after a long reported clause; whoever "he" is, not Mr Blair.
                person = self.resolve_pronoun(np_text.strip(), s + np_start + len(np_text) - len(np_text.lstrip()), s)
                if person is not None:
                    return person
        m = _PARTICIPLE_SAY.search(sent, 0, 200)
        if m is not None and _subordinate(sent, 0, m.start()) is None:
            # "A Labour Party spokesman criticised his record, saying ...": the main clause's
            # subject says it.
            subject = _MAIN_SUBJECT.match(sent, 0, m.start())
            if subject is not None and not any(w.endswith("ed") for w in subject.group("np").split()):
                person = self.resolve_phrase(s + subject.start("np"), s + subject.end("np"))
                if person is not None:
                    return person
        m = _TRAIL_REPORT.search(sent)
        if m is not None:
            if m.group("who") is not None:
                if _subordinate(sent, m.start("who"), m.end("who")) is not None:
                    return None  # ", but short of the 2.5% which the French government had predicted."
                return self.resolve_phrase(s + m.start("who"), s + m.end("who"))
            # "..., argued Mr Blair on Tuesday.": the whole name, up to the punctuation or a time;
            # "..., said they were following rules" names nobody.
            if _INVERTED_START.match(sent, m.start("who2")) is None:
                return None
            after = _INVERTED_SPEAKER.match(sent, m.start("who2"))
            end = after.end("who") if after is not None else m.end("who2")
            return self.resolve_phrase(s + m.start("who2"), s + end)
        return None

    def _speaker_between(self, a: int, b: int, quote_end: int) -> _Person | None:
        """The person (not a group) who last spoke in a sentence wholly between offsets a and b;
        one of the gender a "he"/"she" tag after the quotation (ending at quote_end) needs."""
        tag = _PRONOUN_TAG.match(self.text, quote_end)
        gender = "" if tag is None else ("m" if tag.group(1) == "he" else "f")
        for si in range(self.sentence_of(b) - 1, self.sentence_of(a), -1):
            person = self.sentence_speaker.get(si)
            if person is not None and not person.group:
                return person if not gender or person.gender == gender else None
        return None

    def _quoted_in_subordinate(self, s: int, quote_start: int) -> bool:
        """Whether the say-verb that introduces a quotation inside the sentence stands in a
        subordinate clause: the quotation is that clause's, not the sentence's."""
        if quote_start <= s:
            return False
        # "if the claims were true": a say-word after a determiner is a noun, not who spoke.
        verbs = [v for v in _LEAD_SAY.finditer(self.text, s, quote_start) if not _NOUN_BEFORE.search(self.text, s, v.start())]
        return bool(verbs) and _subordinate(self.text, s, verbs[-1].start()) is not None

    def _nothing_after(self, r: _Region) -> bool:
        """Whether the quotation's sentence ends with it: no speech tag we failed to read."""
        if r.unclosed:
            return True
        si = self.sentence_of(r.end - 1)
        end = self.spans[si][1] if si >= 0 else r.end
        return self.text[r.end:end].strip(" \t.,!?”\"’)") == ""

    def _spoke(self, pos: int, person: _Person) -> None:
        self.sentence_speaker[self.sentence_of(pos)] = person
        if not person.group:
            self.last_speaker[self.para_of(pos)] = person

    def attribute(self, idx: int, outlet: str, author: str) -> Attribution:
        s, e = self.spans[idx]
        text = self.text
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        best = None
        best_overlap = 0
        quoted = 0
        first = self.region_at(s)
        i = first if first is not None else bisect_left(self.region_starts, s)
        while i < len(self.regions) and self.regions[i].start < e:
            r = self.regions[i]
            overlap = min(e, r.end) - max(s, r.start)
            if overlap > 0:
                quoted += overlap
                if overlap > best_overlap:
                    best, best_overlap = i, overlap
            i += 1
        starts_inside = first is not None
        if best is not None:
            person = self.speaker_of_region(best)
            mostly_quoted = quoted * 2 >= (e - s)
            if person is not None and not (starts_inside or mostly_quoted) and self._quoted_in_subordinate(s, self.regions[best].start):
                person = None  # "X was suspended after the committee said his conduct had fallen “...”": X's sentence is the article's
            if person is not None:
                kind = "direct_quote" if starts_inside or mostly_quoted else "reported"
                self._spoke(s, person)
                return Attribution(person.name, person.title, kind)
            if starts_inside and mostly_quoted:
                return Attribution("", "", "direct_quote")
        person = self.reported_speaker(s, e)
        if person is not None:
            if not person.group:
                self._add_history(s, person, True)
            self._spoke(s, person)
            return Attribution(person.name, person.title, "reported")
        return Attribution(author or outlet, "", "article")


def attribute_sentences(
    article_text: str,
    spans: list[tuple[int, int]],
    *,
    outlet: str = "",
    author: str = "",
) -> list[Attribution]:
    if not spans:
        return []
    article = _Article(article_text, [(int(a), int(b)) for a, b in spans])
    return [article.attribute(i, outlet, author) for i in range(len(spans))]
