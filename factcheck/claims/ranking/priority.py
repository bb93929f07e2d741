"""The queue's ranking weights: their defaults and the range an admin may set each in.

The formula is the PostgreSQL function claim_priority_parts (sql_functions/), which reads the
weights from the one-row table ranking_weights; the pipeline's merge and the web app's re-rank
both call it. Each part is a weight times a signal in [0, 1] (check-worthiness is the model's
probability; contestability the ranking model's, pipeline.nlp.contestability; public_interest,
source, specificity and routine come from pipeline.nlp.ranking), except:

    type      the weight of the claim's primary type (type_numeric, ...; "other" counts 0)
    spread    weight x min(1, ln(outlets) / ln(8)): 1 outlet 0, 2 a third, 8+ all of it
    recency   weight x 0.5 ^ (whole days before the queue order's day / recency_half_life_days),
              not in the standing priority: the queue's stored order (claims.queue_rank) adds it
              and moves with the day (factcheck/claims/sql_functions/claim_queue_rank_at.sql)
    routine   a negative weight: routine news sinks

Every appearance of a cluster takes the parts of the cluster's lead appearance (the one whose
own parts rank highest; claim_clusters.lead_claim_id, migration 0027), so a cluster's rank does
not depend on which outlet's wording a run read first.

The defaults are a starting point to tune on real data; the migration seeds them.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_RANKING_WEIGHTS: dict[str, float] = {
    "checkworthiness": 30.0,
    # Chosen out of fold on our graded BBC claims (docs/model.md): the model's probability
    # that a desk would take the claim outweighs the rest together (about twice), which then
    # order the claims it cannot tell apart.
    "contestability": 160.0,
    "public_interest": 20.0,
    "source": 12.0,
    "specificity": 12.0,
    "type_numeric": 8.0,
    "type_comparison": 7.0,
    "type_causal": 7.0,
    "type_official_action": 6.0,
    "type_prediction": 4.0,
    "type_quote": 3.0,
    "routine": -20.0,
    "spread": 12.0,
    # Another wording of a figure a cluster ranked above already carries (pipeline.nlp.stories):
    # enough to take a top-of-the-queue wording below the first page, not out of the queue.
    "repeat": -60.0,
    "recency": 10.0,
    "recency_half_life_days": 7.0,
}


@dataclass(frozen=True)
class WeightField:
    key: str
    label: str
    minimum: float
    maximum: float
    help_text: str


# Every weight, in the order the admin page shows them, with the range it may take.
WEIGHT_FIELDS: tuple[WeightField, ...] = (
    WeightField("checkworthiness", "Check-worthiness", 0, 100, "Points for a model probability of 1."),
    WeightField(
        "contestability", "Contestability", 0, 200,
        "Points for a claim a desk would surely take (the ranking model's probability of 1; docs/ranking_guidelines.md).",
    ),
    WeightField("public_interest", "Public interest", 0, 100, "Points for a claim squarely on a topic of public concern."),
    WeightField("source", "Source", 0, 100, "Points for an official or politician (0.6 of it for an organisation or expert)."),
    WeightField("specificity", "Specificity", 0, 100, "Points for numbers, comparisons, named sources and entities together."),
    WeightField("type_numeric", "Type: numeric", 0, 100, "Points for a numeric claim."),
    WeightField("type_comparison", "Type: comparison or trend", 0, 100, "Points for a comparison or trend."),
    WeightField("type_causal", "Type: causal", 0, 100, "Points for a causal claim."),
    WeightField("type_official_action", "Type: official action", 0, 100, "Points for an official or legal action."),
    WeightField("type_prediction", "Type: prediction or pledge", 0, 100, "Points for a prediction or pledge."),
    WeightField("type_quote", "Type: quote", 0, 100, "Points for a quote."),
    WeightField("routine", "Routine news", -100, 0, "Points (negative) for routine results, sport and entertainment."),
    WeightField("spread", "Spread", 0, 100, "Points for a claim repeated by 8 or more outlets."),
    WeightField(
        "repeat", "Another wording of a figure", -200, 0,
        "Points (negative) for a claim whose figure and actor a claim ranked above already carries, within a week.",
    ),
    WeightField("recency", "Recency", 0, 100, "Points for a claim from the newest article stored."),
    WeightField("recency_half_life_days", "Recency half-life (days)", 0.5, 365, "Days after which the recency points halve."),
)
assert [field.key for field in WEIGHT_FIELDS] == list(DEFAULT_RANKING_WEIGHTS), "every weight has its field"


@dataclass(frozen=True)
class PriorityPart:
    key: str
    label: str
    short: str
    value: float
    note: str


# The parts of claims.priority_parts, in the order pages show them: (key, label, short label).
PRIORITY_PARTS: tuple[tuple[str, str, str], ...] = (
    ("contestability", "contestability", "contest"),
    ("checkworthiness", "check-worthiness", "cw"),
    ("public_interest", "public interest", "interest"),
    ("source", "source", "source"),
    ("specificity", "specificity", "specific"),
    ("type", "type", "type"),
    ("routine", "routine", "routine"),
    ("spread", "spread", "spread"),
    ("repeat", "repeat", "repeat"),
    ("recency", "recency", "new"),
)


def priority_breakdown(parts: dict[str, object] | None, *, recency: float | None) -> list[PriorityPart]:
    """A claim's priority parts to show, each with its note (the topic, the outlet count): its
    stored standing parts and the recency points the queue added as it read it; parts a
    claim's stored priority_parts lack (ranked by an older formula) are left out."""
    if not parts:
        return []
    parts = {**parts, "recency": recency}
    shown = []
    for key, label, short in PRIORITY_PARTS:
        value = parts.get(key)
        if not isinstance(value, int | float):
            continue
        note = ""
        if key == "public_interest" and parts.get("topic"):
            note = str(parts["topic"]).replace("_", " ")
        elif key == "spread" and parts.get("outlets") is not None:
            outlets = parts["outlets"]
            note = f"{outlets} outlet{'' if outlets == 1 else 's'}"
        shown.append(PriorityPart(key, label, short, float(value), note))
    return shown


# What each part says of a claim, in words: raised by it, or held back by it.
_PART_WORDS: dict[str, str] = {
    "contestability": "reads as a claim a desk would take (the ranking model)",
    "checkworthiness": "a checkable factual claim (the check-worthiness model)",
    "public_interest": "on a public matter",
    "source": "who says it",
    "specificity": "specific: figures, names, dates",
    "type": "its kind of claim",
    "routine": "routine news (company results, sport, culture)",
    "spread": "repeated by other outlets",
    "repeat": "another wording of a figure that ranks above it",
    "recency": "new",
}


def priority_reasons(parts: dict[str, object] | None, breakdown: list[PriorityPart], *, claim_id: int | None = None) -> str:
    """Why a claim ranks where it does, in words, from its stored parts and their breakdown
    (priority_breakdown, which the row or page shows as well): the parts that raise it, largest
    first, the ones that hold it back, and whose wording ranks its cluster. Empty when it is
    not ranked."""
    if not breakdown:
        return ""

    def phrase(part: PriorityPart) -> str:
        words = _PART_WORDS[part.key]
        if part.key == "public_interest" and part.note:
            words = f"on {part.note}"
        elif part.key == "spread" and part.note:
            words = f"repeated by {part.note}"
        return f"{words} {'+' if part.value > 0 else '−'}{abs(part.value):.1f}"

    raising = sorted((part for part in breakdown if part.value > 0), key=lambda part: -part.value)
    holding = sorted((part for part in breakdown if part.value < 0), key=lambda part: part.value)
    sentences = []
    if raising:
        sentences.append("Ranked up for: " + "; ".join(phrase(part) for part in raising) + ".")
    if holding:
        sentences.append("Held back as " + "; ".join(phrase(part) for part in holding) + ".")
    lead = (parts or {}).get("lead_claim_id")
    if isinstance(lead, int) and claim_id is not None and lead != claim_id:
        sentences.append(f"Ranked as its cluster, by the wording of appearance #{lead}.")
    repeat_of = (parts or {}).get("repeat_of")
    if isinstance(repeat_of, int):
        sentences.append(f"Its figure is checked with claim #{repeat_of}, which ranks above it.")
    return " ".join(sentences)
