"""The desk's decisions teach the matcher (issue 28 item 5).

Every confirmation, rejection and attach is a label (models.MatchDecision, written by the
service that decides). `matching_refit` reads each (claim, fact-check) pair's latest label,
holds out a quarter of the claims (whole claims, by a hash of the id), scores the rest's pairs
with the active matching version and refits its verifier's calibration on them (Platt on the
verifier's logit); with at least PAIR_MODEL_MIN decisions, PAIR_MODEL_EACH of each kind, it
refits the verifier's pair model too. The candidate is written under the model store with the
active version's other files, registered (factcheck.learning) with the active version's and
its own figures on the held-out decisions, and switched on only when an admin promotes it
(the learning page refuses one that is worse there); a rollback restores the previous one.

The calibration so refitted reads "of the suggestions this desk decided on, how many were the
same claim", at the base rate the verifier assumes; pairs the matcher never retrieved
(attached by hand) cannot be scored and are counted apart.

    python manage.py refit_matching     # the same as the learning page's "Refit now"
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from factcheck.factchecks.models import MatchDecision
from factcheck.factchecks.services import active_matching_artifact_dir, active_matching_version, library_entries
from factcheck.learning.models import ModelKind, ModelVersion
from factcheck.learning.services import model_version_register

MIN_DECISIONS = 20  # scored pairs, both kinds, before a refit means anything
MIN_EACH = 5
HELD_OUT_EVERY = 4  # one claim in four is held out
PAIR_MODEL_MIN = 200
PAIR_MODEL_EACH = 50
PRIMARY = "brier_skill"


@dataclass(frozen=True)
class DecidedPair:
    claim_id: int
    factcheck_id: int
    text: str
    published_on: date | None
    same_claim: bool


def decided_pairs() -> list[DecidedPair]:
    """Each decided (claim, fact-check) pair's latest label."""
    rows = (
        MatchDecision.objects.order_by("claim_id", "factcheck_id", "-decided_at", "-id")
        .distinct("claim_id", "factcheck_id")
        .values_list("claim_id", "factcheck_id", "claim__sentence", "claim__article__published_at", "same_claim")
    )
    return [
        DecidedPair(claim, factcheck, text, published.astimezone(UTC).date() if published else None, same)
        for claim, factcheck, text, published, same in rows
    ]


def held_out(claim_id: int) -> bool:
    return int(hashlib.sha1(str(claim_id).encode()).hexdigest()[:8], 16) % HELD_OUT_EVERY == 0


def pair_features(index: Any, pairs: list[DecidedPair], candidates: int) -> tuple[np.ndarray, np.ndarray]:
    """(VERIFY_FEATURES of each pair the matcher retrieves among its claim's `candidates`,
    which pairs those are)."""
    claims = sorted({pair.claim_id for pair in pairs})
    texts = {pair.claim_id: pair.text for pair in pairs}
    dates = {pair.claim_id: pair.published_on for pair in pairs}
    q_rows, d_rows, matrix = index.features([texts[c] for c in claims], [dates[c] for c in claims], candidates)
    keep, verify = index.verification_features([texts[c] for c in claims], q_rows, d_rows, matrix, candidates)
    row_of = {(claims[q], index.ids[d]): n for n, (q, d) in enumerate(zip(q_rows[keep], d_rows[keep], strict=True))}
    found = np.array([(pair.claim_id, str(pair.factcheck_id)) in row_of for pair in pairs])
    rows = [row_of[(pair.claim_id, str(pair.factcheck_id))] for pair, ok in zip(pairs, found, strict=True) if ok]
    return verify[rows] if rows else np.zeros((0, verify.shape[1])), found


def figures(probability: np.ndarray, labels: np.ndarray, reference_rate: float) -> dict[str, float]:
    """Brier skill (1 - Brier / the Brier of always saying `reference_rate`: higher is better),
    Brier, log loss and accuracy at the badge threshold, on held-out decisions."""
    p = np.clip(probability, 1e-6, 1 - 1e-6)
    brier = float(np.mean((p - labels) ** 2))
    reference = float(np.mean((reference_rate - labels) ** 2)) or 1e-9
    log_loss = float(-np.mean(labels * np.log(p) + (1 - labels) * np.log(1 - p)))
    badge = settings.FACTCHECK_CHECKED_BEFORE_MIN_SCORE
    return {
        PRIMARY: round(1 - brier / reference, 6), "brier": round(brier, 6), "log_loss": round(log_loss, 6),
        "accuracy_at_badge": round(float(np.mean((probability >= badge) == (labels == 1))), 6),
    }


def matching_refit(*, by: User | None) -> ModelVersion:
    """Refit the active matching version from the desk's decisions; registers a candidate."""
    from sklearn.linear_model import LogisticRegression

    from pipeline.nlp.matching import VERIFIER_FILE, MatchConfig, MatchIndex, read_artifact
    from pipeline.nlp.verification import Verifier

    active = active_matching_version()
    artifact = read_artifact(active_matching_artifact_dir() or None)
    if VERIFIER_FILE not in artifact.files:
        raise ValidationError("The active matching version has no verifier to refit.")
    base = Verifier.from_json(json.loads(artifact.files[VERIFIER_FILE]))
    pairs = decided_pairs()
    if len(pairs) < MIN_DECISIONS:
        raise ValidationError(f"The desk has decided on {len(pairs)} matches; a refit needs at least {MIN_DECISIONS}.")
    candidates = settings.FACTCHECK_MATCH_CANDIDATES
    index = MatchIndex.build([entry.as_engine_entry() for entry in library_entries()], artifact, MatchConfig(candidates=candidates))
    features, found = pair_features(index, pairs, candidates)
    features = base.select(features)  # the refit keeps the active verifier's features
    scored = [pair for pair, ok in zip(pairs, found, strict=True) if ok]
    labels = np.array([float(pair.same_claim) for pair in scored])
    test = np.array([held_out(pair.claim_id) for pair in scored], bool)
    train = ~test
    for part, name in ((train, "fit on"), (test, "hold out")):
        if part.sum() < MIN_DECISIONS // 2 or labels[part].sum() < MIN_EACH // 2 or (1 - labels[part]).sum() < MIN_EACH // 2:
            raise ValidationError(
                f"Not enough of the desk's decisions to {name}: {int(part.sum())} scored pairs, {int(labels[part].sum())} confirmed "
                f"({len(pairs)} decided, {len(pairs) - len(scored)} the matcher never retrieved); at least {MIN_DECISIONS} with "
                f"{MIN_EACH} of each kind are needed in all."
            )
    refitted = base
    pair_model = bool(train.sum() >= PAIR_MODEL_MIN and min(labels[train].sum(), (1 - labels[train]).sum()) >= PAIR_MODEL_EACH)
    if pair_model:
        mean, scale = features[train].mean(axis=0), features[train].std(axis=0)
        scale[scale == 0] = 1.0
        model = LogisticRegression(C=1.0, max_iter=2000).fit((features[train] - mean) / scale, labels[train])
        refitted = replace(base, coefficients=model.coef_[0].astype(np.float64), intercept=float(model.intercept_[0]), mean=mean, scale=scale)
    platt = LogisticRegression(C=1e6, max_iter=2000).fit(refitted.logit(features[train])[:, None], labels[train])
    # The decisions are the population the calibration is fitted on: no shift at the assumed rate.
    candidate = replace(refitted, slope=float(platt.coef_[0][0]), offset=float(platt.intercept_[0]), training_base_rate=base.base_rate)

    reference = float(labels[train].mean())
    metrics = {
        "primary": PRIMARY,
        "before": figures(base.probability(features[test]), labels[test], reference),
        "after": figures(candidate.probability(features[test]), labels[test], reference),
        "held_out": int(test.sum()),
        "trained_on": {
            "decisions": len(pairs), "scored_pairs": int(train.sum()), "confirmed": int(labels[train].sum()),
            "not_retrieved": len(pairs) - len(scored), "pair_model_refitted": pair_model,
        },
    }
    label = f"desk-{datetime.now(UTC):%Y%m%d-%H%M%S}"
    relative = f"matching/{label}"
    directory = Path(settings.FACTCHECK_MODEL_STORE) / relative
    directory.mkdir(parents=True, exist_ok=False)
    for name, content in artifact.files.items():
        (directory / name).write_bytes(content)
    (directory / VERIFIER_FILE).write_text(json.dumps(candidate.to_json(), indent=1) + "\n", encoding="utf-8")
    notes = "Calibration refitted" + (" with the pair model" if pair_model else "") + f" on {int(train.sum())} of the desk's decisions."
    return model_version_register(kind=ModelKind.MATCHING, label=label, artifact_dir=relative, metrics=metrics, parent=active, by=by, notes=notes)
