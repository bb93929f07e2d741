"""The desk teaches the ranking: refit the check-worthiness kind's ranking model from our
graded BBC claims (the base data) plus the reviewers' triage decisions (TriageLabel).

A check-worthiness model version's artifact directory holds the contestability model
(pipeline/nlp/contestability.py, `contestability.json`): what the queue ranks by beside the
check-worthiness score. The CNN and head that find claims stay the ones shipped in
pipeline/models/checkworthiness/ (their refit needs the debate data and minutes of CPU; a
version that carries them can add their files to the same directory later).

The desk's decisions are split by article: a fifth (pipeline.contestability_training.
is_held_out on "desk:<article id>") is held out, never fitted on, and both the active version
and the candidate are measured on it: average precision of "check it" against the other
decisions (the primary figure the learning app's promotion compares), NDCG@30 of the three
grades, and how many of the top 30 are "check it". Registered as a candidate; an admin
promotes it (refused when it is worse on those decisions) or leaves it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils import timezone

from factcheck.claims.models import TriageLabel
from factcheck.learning.models import ModelKind, ModelVersion
from factcheck.learning.selectors import active_version
from factcheck.learning.services import model_store_path, model_version_register
from pipeline.contestability_training import (
    TAKE,
    TOP,
    Example,
    average_precision,
    corpus_examples,
    default_bbc_path,
    fit,
    is_held_out,
    ndcg_at,
    out_of_genre_examples,
    shared_data_root,
)
from pipeline.nlp.contestability import ClaimView, ContestabilityModel, load_model

GRADE_OF_DECISION = {TriageLabel.Decision.NOT_A_CLAIM: 0, TriageLabel.Decision.NOT_WORTH_CHECKING: 1, TriageLabel.Decision.CHECK: TAKE}
PRIMARY = "average_precision"


def desk_examples() -> list[Example]:
    """Every triage label as an example, grouped by its article."""
    examples = []
    for label in TriageLabel.objects.order_by("id"):
        view = label.claim_view or {}
        examples.append(
            Example(
                ClaimView(
                    label.sentence, float(view.get("score") or 0.0), str(view.get("claim_type") or "other"),
                    tuple(view.get("claim_types") or ()), str(view.get("attribution") or ""), dict(view.get("rank_signals") or {}),
                ),
                GRADE_OF_DECISION[TriageLabel.Decision(label.decision)],
                f"desk:{label.article_id}",
            )
        )
    return examples


def figures(model: ContestabilityModel, examples: list[Example]) -> dict[str, Any]:
    """The ranking figures of `model` on held-out desk decisions: empty when they do not hold
    both a "check it" and another decision (nothing to compare on)."""
    labels = [example.grade >= TAKE for example in examples]
    if not any(labels) or all(labels):
        return {}
    scores = [model.probability(example.view) for example in examples]
    order = np.argsort(-np.array(scores), kind="stable")
    ranked = [examples[i].grade for i in order]
    return {
        PRIMARY: round(average_precision(labels, scores), 4),
        f"ndcg_at_{TOP}": round(ndcg_at(ranked, ranked), 4),
        f"check_in_top_{TOP}": int(sum(grade >= TAKE for grade in ranked[:TOP])),
    }


def base_examples(bbc_path: Path | None = None) -> list[Example]:
    """What the shipped model is fitted on: the graded BBC claims outside the held-out fifth
    and the out-of-genre claims (those of its sources that are there)."""
    from pipeline.nlp.checkworthiness import load_scorer

    bbc_path = bbc_path or default_bbc_path(Path(settings.CHECKWORTHINESS_DATA_DIR))
    if not bbc_path.exists():
        raise ValidationError(f"The base data is missing: BBC News not found at {bbc_path} (../shared/data/bbc_news/).")
    scorer = load_scorer()
    examples, _ = corpus_examples(bbc_path, scorer)
    extra, _ = out_of_genre_examples(shared_data_root(bbc_path), scorer)
    return [example for example in examples if not is_held_out(example.group)] + extra


def checkworthiness_refit(*, by: User | None, bbc_path: Path | None = None) -> ModelVersion:
    """Fit a candidate on the base data and the desk's decisions outside the held-out fifth,
    measure it and the active version on the held-out fifth, write its artifact under the
    model store and register it (a candidate: nothing scores with it until an admin promotes it)."""
    desk = desk_examples()
    held_out = [example for example in desk if is_held_out(example.group)]
    training = base_examples(bbc_path) + [example for example in desk if not is_held_out(example.group)]
    candidate = fit(training)
    active = active_version(ModelKind.CHECKWORTHINESS)
    current = load_model(model_store_path(active))
    label = f"refit-{timezone.now():%Y%m%d-%H%M%S}"
    artifact_dir = f"{ModelKind.CHECKWORTHINESS}/{label}"
    candidate.save(Path(settings.FACTCHECK_MODEL_STORE) / artifact_dir)
    metrics = {
        "primary": PRIMARY,
        "before": figures(current, held_out),
        "after": figures(candidate, held_out),
        "held_out": len(held_out),
        "trained_on": {
            "graded_bbc_claims": sum(not example.out_of_genre for example in training) - (len(desk) - len(held_out)),
            "out_of_genre_claims": sum(example.out_of_genre for example in training),
            "desk_labels": len(desk) - len(held_out),
            "desk_check_it": sum(example.grade >= TAKE for example in desk if not is_held_out(example.group)),
        },
    }
    notes = "Ranking (contestability) model refit from the graded BBC claims and the desk's triage decisions."
    return model_version_register(
        kind=ModelKind.CHECKWORTHINESS, label=label, artifact_dir=artifact_dir, metrics=metrics, parent=active, by=by, notes=notes
    )
