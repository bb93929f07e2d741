"""The extraction itself, in plain Python: one article in, its claims out.

The Spark job calls these functions inside Arrow-batched UDFs; `python -m pipeline extract`
and the single-process benchmark call them directly. One code path, so the command line
and the cluster produce the same claims.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from pipeline.nlp.attribution import attribute_sentences
from pipeline.nlp.checkworthiness import Scorer
from pipeline.nlp.claim_features import (
    has_pronoun_subject,
    is_boilerplate,
    is_contested_assertion,
    is_pronoun_fragment,
    is_public_matter,
    is_question,
    is_reported_question,
)
from pipeline.nlp.claim_types import classify_claim
from pipeline.nlp.contestability import ClaimView, ContestabilityModel, load_model
from pipeline.nlp.quantities import parse_quantities
from pipeline.nlp.ranking import rank_signals
from pipeline.nlp.segment import split_sentences
from pipeline.nlp.stories import story_keys


@dataclass(frozen=True, slots=True)
class SentenceRecord:
    index: int
    paragraph: int
    start: int
    end: int
    text: str
    speaker: str
    speaker_title: str
    attribution: str


@dataclass(slots=True)
class ClaimRecord:
    start: int
    end: int
    sentence: str
    score: float
    claim_type: str
    claim_types: list[str]
    quantities: list[dict[str, object]]
    speaker: str
    speaker_title: str
    attribution: str
    claim_key: str = ""
    cluster_key: str = ""
    # Ranking signals (pipeline.nlp.ranking.rank_signals): public interest and its topic,
    # source prominence, specificity, routine news; and contestability
    # (pipeline.nlp.contestability: the probability that a desk would take the claim).
    signals: dict[str, float | str | list[str]] = field(default_factory=dict)
    # What a reviewer needs to read the claim alone: the previous sentence when its subject
    # is a pronoun; empty otherwise.
    context: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def claim_key(content_hash: str, start: int, end: int) -> str:
    """sha1(content hash : start : end); the Spark job computes the same with F.sha1."""
    return hashlib.sha1(f"{content_hash}:{start}:{end}".encode()).hexdigest()


def article_sentences(text: str, *, outlet: str = "", author: str = "") -> list[SentenceRecord]:
    """Sentences with exact offsets, each attributed to a speaker (or to the outlet/author)."""
    sentences = split_sentences(text)
    attributions = attribute_sentences(text, [(s.start, s.end) for s in sentences], outlet=outlet or "", author=author or "")
    return [
        SentenceRecord(
            index=index,
            paragraph=sentence.paragraph,
            start=sentence.start,
            end=sentence.end,
            text=text[sentence.start : sentence.end],
            speaker=attribution.speaker,
            speaker_title=attribution.title,
            attribution=attribution.kind,
        )
        for index, (sentence, attribution) in enumerate(zip(sentences, attributions, strict=True))
    ]


@dataclass(frozen=True, slots=True)
class Selected:
    index: int
    score: float
    claim_type: str
    claim_types: list[str]
    quantities: list[dict[str, object]]


def is_claim(*, sentence: str, score: float, threshold: float, claim_type: str, speaker_title: str = "") -> bool:
    """A checkable factual claim: the model says so, or it is a trend, comparison or causal
    assertion on a contested public subject, or an official's pledge on a public matter (desks
    track promises: "We're definitely going to ... flood the zone"); never page furniture, a
    question or a fragment."""
    if is_boilerplate(sentence) or is_question(sentence) or is_reported_question(sentence) or is_pronoun_fragment(sentence):
        return False
    if score >= threshold or is_contested_assertion(sentence, claim_type):
        return True
    return bool(speaker_title) and claim_type == "prediction" and is_public_matter(sentence)


def select_claims(sentences: Sequence[str], attributions: Sequence[str], speaker_titles: Sequence[str], scorer: Scorer) -> list[Selected]:
    """Which sentences are claims: scored in one vectorised call, then typed and parsed."""
    if not sentences:
        return []
    # Parsed once: the model's cues, the typing (numeric) and the claim all need them.
    parsed_all = [parse_quantities(sentence) for sentence in sentences]
    scores = scorer.score(list(sentences), parsed_all)
    selected = []
    for index, (sentence, attribution, title, score) in enumerate(zip(sentences, attributions, speaker_titles, scores, strict=True)):
        parsed = parsed_all[index]
        primary, types = classify_claim(sentence, has_quote=attribution == "direct_quote", quantities=parsed)
        if not is_claim(sentence=sentence, score=float(score), threshold=scorer.threshold, claim_type=primary, speaker_title=title):
            continue
        quantities = [quantity.as_dict() for quantity in parsed]
        selected.append(Selected(index, round(float(score), 6), primary, list(types), quantities))
    return selected


def claims_of_articles(
    articles: Sequence[Sequence[SentenceRecord]], scorer: Scorer, ranker: ContestabilityModel | None = None
) -> list[tuple[int, ClaimRecord]]:
    """(article index, claim) for the sentences of many articles, scored in one call: the
    scorer's cost is mostly per call and per new word, not per sentence. `ranker`: the
    contestability model of the active model version (None: the shipped one)."""
    ranker = ranker or load_model()
    records = [(article, record) for article, sentences in enumerate(articles) for record in sentences]
    chosen = select_claims(
        [r.text for _, r in records], [r.attribution for _, r in records], [r.speaker_title for _, r in records], scorer
    )
    claims = []
    for selected in chosen:
        article, record = records[selected.index]
        signals: dict[str, float | str | list[str]] = {
            **rank_signals(
                sentence=record.text, claim_type=selected.claim_type, claim_types=selected.claim_types,
                quantities=selected.quantities, speaker=record.speaker, speaker_title=record.speaker_title,
                attribution=record.attribution,
            )
        }
        view = ClaimView(record.text, selected.score, selected.claim_type, selected.claim_types, record.attribution, signals)
        signals["contestability"] = round(ranker.probability(view), 4)
        # After the ranking model, which reads numbers: the keys that tell the queue which
        # other wordings are of the same figure (pipeline.nlp.stories).
        story = story_keys(sentence=record.text, quantities=selected.quantities, speaker=record.speaker, attribution=record.attribution)
        if story:
            signals["story"] = story
        claims.append((
            article,
            ClaimRecord(
                start=record.start,
                end=record.end,
                sentence=record.text,
                score=selected.score,
                claim_type=selected.claim_type,
                claim_types=selected.claim_types,
                quantities=selected.quantities,
                speaker=record.speaker,
                speaker_title=record.speaker_title,
                attribution=record.attribution,
                context=pronoun_context(articles[article], record.index),
                signals=signals,
            ),
        ))
    return claims


def pronoun_context(sentences: Sequence[SentenceRecord], index: int) -> str:
    """The sentence before a claim whose subject is a pronoun ("It means more criminal
    aliens..."), so the reviewer reads what "it" is; empty otherwise."""
    if index == 0 or not has_pronoun_subject(sentences[index].text):
        return ""
    return sentences[index - 1].text


@dataclass(frozen=True, slots=True)
class ArticleText:
    text: str
    content_hash: str
    outlet: str = ""
    author: str = ""


def extract_articles(
    articles: Sequence[ArticleText], scorer: Scorer, ranker: ContestabilityModel | None = None
) -> tuple[list[int], list[tuple[int, ClaimRecord]]]:
    """(sentence count per article, (article index, claim) in article then offset order)
    for a batch of articles, with claim keys."""
    sentences = [article_sentences(a.text, outlet=a.outlet or "", author=a.author or "") for a in articles]
    claims = claims_of_articles(sentences, scorer, ranker)
    for article, claim in claims:
        claim.claim_key = claim_key(articles[article].content_hash, claim.start, claim.end)
    return [len(s) for s in sentences], claims


def quantities_json(quantities: list[dict[str, object]]) -> str:
    return json.dumps(quantities, ensure_ascii=False, sort_keys=True)


def signals_json(signals: dict[str, float | str | list[str]]) -> str:
    return json.dumps(signals, ensure_ascii=False, sort_keys=True)
