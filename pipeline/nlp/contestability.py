"""Contestability: how likely a desk is to take a claim, beside how check-worthy it is.

The check-worthiness model finds checkable factual sentences; most of what it finds in news
is routine (an official statistic read out from its own source, an announcement, a forecast,
a company's results). The queue must put first what a desk would check: a contestable
assertion of fact on a public matter by a public actor or by the article itself (a figure
used to argue, a comparison, a trend, a cause, a record, a promise kept or broken). The
guideline is docs/ranking_guidelines.md.

A logistic regression over a few dozen cues of one claim (who says it and how, what it
asserts, whether it is routine) and the ranking signals the pipeline already computes
(pipeline.nlp.ranking) gives the probability that a desk would take the claim (grade 3 of the
guideline). Its coefficients are a small JSON artifact (`contestability.json`), trained by
`python manage.py train_contestability` from our graded BBC claims
(training/bbc_news_rank_labels.tsv) plus the desk's triage decisions, and shipped in
pipeline/models/contestability/ or, once an admin refits and promotes one, in the active model
version's artifact directory.

Pure functions of one claim, so training, the command line and the Spark job compute the same
values. The order of FEATURE_NAMES is part of the artifact.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pipeline.nlp.claim_features import is_contested_assertion
from pipeline.nlp.ngrams import weighted_sum

ARTIFACT_FILE = "contestability.json"
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "models" / "contestability"

_TYPES: tuple[str, ...] = ("numeric", "comparison", "causal", "quote", "official_action", "prediction", "other")
_ATTRIBUTIONS: tuple[str, ...] = ("article", "reported", "direct_quote")

# Cues, each a regular expression counted once per sentence (present or not).
CUES: dict[str, re.Pattern[str]] = {
    # Someone contests something: the claim is an argument, not a report.
    "contest": re.compile(
        r"\b(?:claim(?:s|ed)?|accus\w+|insist\w*|den(?:y|ied|ies)|argu\w+|branded|brand(?:ing|s)|ridicul\w+|criticis\w+"
        r"|attack\w*|derided|dismissed|rejected|challenged|blamed|pointed (?:out|to))\b",
        re.I,
    ),
    # Failure, waste and broken promises: what desks check politicians on.
    "failure": re.compile(
        r"\b(?:fail(?:ed|ing|s|ure)? to|failing|broken|broke|reneged|went back on|wast\w+|uncosted|black hole|shambles"
        r"|squeez\w+|stealth tax|only|despite|yet to|not yet|well below|no longer)\b",
        re.I,
    ),
    "promise": re.compile(r"\b(?:promis\w*|pledg\w*|commitment|committed|vow\w*|guarantee\w*|target)\b", re.I),
    # A record or a first.
    "record": re.compile(
        r"\b(?:record|highest|lowest|biggest|largest|smallest|worst|fastest|slowest|first time|all-time|ever"
        r"|since (?:the )?(?:1[89]\d\d|20\d\d)s?|for \d+ years|in (?:more than )?\w+ (?:years|decades))\b",
        re.I,
    ),
    "comparison": re.compile(
        r"\b(?:more than|less than|fewer than|times (?:more|less|as)|compared (?:with|to)|twice|double[ds]?|halved"
        r"|than|rose|rise|fell|fall|increase[ds]?|decrease[ds]?|cut|grew|growing|soared|rocketed|doubled|risen|fallen)\b",
        re.I,
    ),
    "cause": re.compile(
        r"\b(?:because|led to|lead to|result of|as a result|due to|caused?|blamed on|thanks to|means|meant|so that"
        r"|hit by|driven by|helped by)\b",
        re.I,
    ),
    # Who argues: parties, governments, politicians, campaigners.
    "political_actor": re.compile(
        r"\b(?:Labour|Tor(?:y|ies)|Conservatives?|Lib Dems?|Liberal Democrats?|SNP|Plaid|UKIP|Republicans?|Democrats?"
        r"|shadow|opposition|government|ministers?|chancellor|prime minister|Mr (?:Blair|Brown|Howard|Kennedy|Bush)"
        r"|campaign\w*|union|TUC|charit\w+)\b"
    ),
    # A data provider reading out its own series, or figures published as news.
    "statistic_source": re.compile(
        r"\b(?:according to (?:figures|data|the|official|government|a survey|research)|figures (?:from|showed|show|published|released)"
        r"|data (?:from|showed|show)|(?:the )?(?:ONS|Office for National Statistics|Commerce Department|Labor Department"
        r"|Bank of England|Halifax|Nationwide|IMF|OECD|World Bank)|survey|index|quarter|seasonally|annual rate"
        r"|year-on-year|month(?:ly)?|the bank said|official figures)\b"
    ),
    "announcement": re.compile(
        r"\b(?:announc\w+|unveil\w*|publish\w*|launch\w*|introduc\w+|set out|plans? to|is to|are to|will be|to be"
        r"|agreed to|signed|deal|approved|appointed|resign\w*|suspended)\b",
        re.I,
    ),
    "forecast": re.compile(
        r"\b(?:forecast\w*|predict\w*|project\w*|expect\w*|estimat\w+|set to|likely|could|may|might|would|will|outlook"
        r"|by 20\d\d)\b",
        re.I,
    ),
    "business": re.compile(
        r"\b(?:profits?|revenues?|sales|turnover|earnings|shares?|shareholders?|dividends?|investors?|analysts?|the firm"
        r"|the company|the group|chief executive|merger|takeover|stock|Nikkei|Dow|FTSE|Nasdaq|customers|retailer|airline"
        r"|carmaker|insurer|bank's)\b",
        re.I,
    ),
    "culture_sport": re.compile(
        r"\b(?:film|movie|album|band|singer|actor|actress|star|award|Oscar|box office|chart|festival|show|match|goal"
        r"|scored|cup|league|championship|tournament|season|coach|squad|player|Six Nations|Davis Cup|rugby|football"
        r"|tennis|cricket)s?\b",
        re.I,
    ),
    "opinion": re.compile(
        r"\b(?:think|believe|feel|hope|want|wants|should|must|need|needs|desperate|outrageous|disgrace|shame|ridiculous"
        r"|appalling|great|wonderful|terrible|confident|worried|concern\w*|welcome\w*|urg\w+|call(?:ed|s)? (?:on|for))\b",
        re.I,
    ),
    "first_person": re.compile(r"\b(?:I|I'm|I've|we|we're|we've|our|us|my)\b"),
    "quote_mark": re.compile(r"[\"“”]"),
    "figure": re.compile(r"\d|\b(?:million|billion|thousand|hundred|per cent|percent|half|third|quarter)\b", re.I),
    "money": re.compile(r"[£$€]|\b(?:pounds|dollars|euros)\b", re.I),
    "history": re.compile(r"\b(?:19[0-8]\d|in the (?:19|18)\d0s)\b"),
}

SIGNAL_NAMES: tuple[str, ...] = ("checkworthiness", "public_interest", "source", "specificity", "routine")

FEATURE_NAMES: tuple[str, ...] = (
    *SIGNAL_NAMES,
    *(f"type_{name}" for name in _TYPES),
    *(f"attribution_{name}" for name in _ATTRIBUTIONS),
    *(f"cue_{name}" for name in CUES),
    "political_argues",  # a political actor and a contest or failure cue together
    "figure_argued",  # a figure and a contest, failure, record or comparison cue together
    "official_reads_figure",  # a statistic source or announcement with a figure, and nothing contested
    # A trend, comparison or cause asserted on a contested public subject (crime, immigration,
    # the public finances, health): what the pipeline keeps as a claim whatever the model says
    # ("Sanctuary does not mean safer streets."); a genre-free cue, so it carries past the BBC.
    "contested_assertion",
    "long",  # more than 30 words
    "short",  # fewer than 10 words
)


@dataclass(frozen=True, slots=True)
class ClaimView:
    """What the model reads of one claim: its sentence and what the pipeline found of it."""

    sentence: str
    score: float
    claim_type: str
    claim_types: Sequence[str]
    attribution: str
    signals: Mapping[str, object]


def features(claim: ClaimView) -> list[float]:
    """The claim's features, in FEATURE_NAMES order."""
    text = claim.sentence
    cues = {name: 1.0 if pattern.search(text) else 0.0 for name, pattern in CUES.items()}
    types = set(claim.claim_types) | {claim.claim_type}
    signals = [
        float(claim.score),
        *(_number(claim.signals.get(name)) for name in SIGNAL_NAMES[1:]),
    ]
    words = len(text.split())
    argued = max(cues["contest"], cues["failure"])
    return [
        *signals,
        *(1.0 if name in types else 0.0 for name in _TYPES),
        *(1.0 if claim.attribution == name else 0.0 for name in _ATTRIBUTIONS),
        *cues.values(),
        cues["political_actor"] * argued,
        cues["figure"] * max(argued, cues["record"], cues["comparison"]),
        max(cues["statistic_source"], cues["announcement"]) * cues["figure"] * (1.0 - argued),
        1.0 if is_contested_assertion(text, claim.claim_type) else 0.0,
        1.0 if words > 30 else 0.0,
        1.0 if words < 10 else 0.0,
    ]


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


class ArtifactError(ValueError):
    """A contestability artifact that cannot be read or does not fit this code's features."""


@dataclass(frozen=True)
class ContestabilityModel:
    """A fitted logistic regression over the standardised cues (FEATURE_NAMES) and the word
    n-grams of the sentence."""

    weights: tuple[float, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    idf: Mapping[str, float]
    term_weights: Mapping[str, float]
    intercept: float
    metadata: Mapping[str, object]

    def logit(self, claim: ClaimView) -> float:
        values = features(claim)
        cues = sum(
            weight * (value - mean) / scale
            for weight, value, mean, scale in zip(self.weights, values, self.means, self.scales, strict=True)
        )
        terms = weighted_sum(claim.sentence, self.idf, self.term_weights)
        return self.intercept + cues + terms

    def probability(self, claim: ClaimView) -> float:
        """The probability that a desk would take the claim (grade 3 of the guideline)."""
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, self.logit(claim)))))

    def save(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / ARTIFACT_FILE
        vocabulary = sorted(self.idf)
        data = {
            "features": list(FEATURE_NAMES),
            "weights": [round(value, 8) for value in self.weights],
            "means": [round(value, 8) for value in self.means],
            "scales": [round(value, 8) for value in self.scales],
            "intercept": round(self.intercept, 8),
            "vocabulary": vocabulary,
            "idf": [round(self.idf[term], 6) for term in vocabulary],
            "term_weights": [round(self.term_weights.get(term, 0.0), 8) for term in vocabulary],
            "metadata": dict(self.metadata),
        }
        path.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        return path


def artifact_path(directory: Path | str | None) -> Path | None:
    """The model file of a version's artifact directory, or None for the shipped one: when
    there is no directory (the shipped version) or it holds no ranking model (a version refit
    for another part of the check-worthiness model)."""
    if directory:
        path = Path(directory) / ARTIFACT_FILE
        if path.exists():
            return path
    return None


_MODELS: dict[str, ContestabilityModel] = {}


def load_model(directory: Path | str | None = None) -> ContestabilityModel:
    """The model of a version's artifact directory (None: the shipped one), read once per
    process (executors reuse their Python workers)."""
    path = artifact_path(directory)
    key = str(path) if path else "shipped"
    if key not in _MODELS:
        _MODELS.clear()
        _MODELS[key] = read_model(path)
    return _MODELS[key]


def read_model(path: Path | None) -> ContestabilityModel:
    """The model in `path`, or the shipped one, read as a package resource: the Spark job
    imports the pipeline from a zip archive, where it is no file of its own."""
    where = str(path) if path else f"pipeline/models/contestability/{ARTIFACT_FILE}"
    try:
        if path is None:
            text = resources.files("pipeline").joinpath("models", "contestability", ARTIFACT_FILE).read_text(encoding="utf-8")
        else:
            text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, json.JSONDecodeError) as error:
        raise ArtifactError(f"{where}: {error}") from error
    if data.get("features") != list(FEATURE_NAMES):
        raise ArtifactError(f"{where}: trained on other cues than this code computes; refit it")
    count = len(FEATURE_NAMES)
    if not all(len(data.get(key, ())) == count for key in ("weights", "means", "scales")):
        raise ArtifactError(f"{where}: expected {count} weights, means and scales")
    vocabulary = data.get("vocabulary", [])
    if not len(vocabulary) == len(data.get("idf", ())) == len(data.get("term_weights", ())):
        raise ArtifactError(f"{where}: the vocabulary, its idf and its weights differ in length")
    return ContestabilityModel(
        weights=tuple(float(v) for v in data["weights"]),
        means=tuple(float(v) for v in data["means"]),
        scales=tuple(float(v) for v in data["scales"]),
        idf=dict(zip(vocabulary, (float(v) for v in data["idf"]), strict=True)),
        term_weights={term: float(w) for term, w in zip(vocabulary, data["term_weights"], strict=True) if w},
        intercept=float(data["intercept"]),
        metadata=data.get("metadata", {}),
    )
