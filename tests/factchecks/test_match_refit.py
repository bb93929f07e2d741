"""Issue 28 item 5: the desk's decisions teach the matcher. Each decision is stored as a
label with the matching version that was active; a refit from them is a candidate with its
figures and the active version's on held-out decisions; one worse there is not switched on;
a promoted one is what the web app's re-match and the Spark job score with; a rollback
restores the version before.

Personas: reviewer (decides on matches), admin_user (refits, promotes, rolls back)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from factcheck.factchecks import refit, services
from factcheck.factchecks.models import ClaimMatch, FactCheck, MatchDecision
from factcheck.learning import selectors as learning
from factcheck.learning import services as versions
from factcheck.learning.models import ModelKind, ModelVersion
from factcheck.runs.spark import database_url_for_job
from pipeline.db import read_matching_artifact_dir
from pipeline.match_library import prepare_library
from pipeline.nlp.matching import VERIFIER_FILE
from tests.web.test_queue import make_claim

pytestmark = pytest.mark.django_db

TOWNS = (
    "Alderbury Brookhaven Caldwick Dunmore Elsworth Farrowdale Glenridge Hartwell Ivybridge Jarrowfield Kestrel Lindenholt "
    "Marrowby Northcote Oakhurst Pemberton Quarrington Ravenscar Stanbury Thornwick Upperton Valewood Westmarch Yarrowby"
).split()


@pytest.fixture
def store(settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_MODEL_STORE = tmp_path
    monkeypatch.setenv("FACTCHECK_MODEL_STORE", str(tmp_path))  # the pipeline reads the same variable
    return tmp_path


def decided_world(reviewer, *, truthful_training: bool) -> None:  # type: ignore[no-untyped-def]
    """A check per town; per town a repeat of it and a claim about the same mayor's library,
    each matched to the town's check and decided by the reviewer. Held-out claims are decided
    truthfully (the repeat confirmed, the other rejected); the rest truthfully or inverted."""
    for number, town in enumerate(TOWNS):
        check = FactCheck.objects.create(
            claim=f"The mayor of {town} raised parking fees by {number + 11} percent in 2019.", publisher="Snopes", external_id=f"town-{town}"
        )
        repeat = make_claim(sentence=f"{town}'s mayor increased parking charges {number + 11}% in 2019.")
        other = make_claim(sentence=f"The mayor of {town} opened a new public library in 2021.")
        for claim, same in ((repeat, True), (other, False)):
            match = ClaimMatch.objects.create(claim=claim, factcheck=check, score=0.5, rank=1)
            truth = same if truthful_training or refit.held_out(claim.pk) else not same
            services.claim_match_decide(match=match, actor=reviewer, decision="confirmed" if truth else "rejected")


def test_each_decision_is_a_label_with_the_version_that_suggested_it(reviewer) -> None:  # type: ignore[no-untyped-def]
    check = FactCheck.objects.create(claim="A check.", publisher="Snopes", external_id="x")
    claim = make_claim()
    match = ClaimMatch.objects.create(claim=claim, factcheck=check, score=0.42, rank=1)
    services.claim_match_decide(match=match, actor=reviewer, decision="rejected")
    services.claim_match_decide(match=match, actor=reviewer, decision="confirmed")
    shipped = learning.active_version(ModelKind.MATCHING)
    rows = list(MatchDecision.objects.order_by("id").values_list("decision", "same_claim", "score", "model_version", "decided_by"))
    assert rows == [("rejected", False, 0.42, shipped.pk, reviewer.pk), ("confirmed", True, 0.42, shipped.pk, reviewer.pk)]
    # The refit reads the latest per pair.
    assert [(p.claim_id, p.same_claim) for p in refit.decided_pairs()] == [(claim.pk, True)]


def test_a_refit_needs_decisions(store: Path) -> None:
    with pytest.raises(ValidationError, match="needs at least 20"):
        refit.matching_refit(by=None)
    with pytest.raises(CommandError, match="needs at least 20"):
        call_command("refit_matching")
    assert ModelVersion.objects.filter(kind=ModelKind.MATCHING).count() == 1


def test_a_refit_worse_on_the_held_out_decisions_is_not_switched_on(store: Path, reviewer, admin_user) -> None:  # type: ignore[no-untyped-def]
    decided_world(reviewer, truthful_training=False)
    candidate = refit.matching_refit(by=admin_user)
    metrics = candidate.metrics
    assert candidate.state == "candidate" and candidate.parent == learning.active_version(ModelKind.MATCHING)
    assert metrics["primary"] == "brier_skill" and metrics["held_out"] > 0
    assert metrics["after"]["brier_skill"] < metrics["before"]["brier_skill"]
    assert (store / candidate.artifact_dir / VERIFIER_FILE).is_file()
    with pytest.raises(ValidationError, match="worse than the active one"):
        versions.model_version_promote(version=candidate, by=admin_user)
    assert learning.active_version(ModelKind.MATCHING).label == "shipped" and services.active_matching_artifact_dir() == ""


@pytest.mark.django_db(transaction=True)
def test_a_better_refit_once_promoted_is_what_matches_and_a_rollback_restores_the_shipped_one(store: Path, reviewer, admin_user) -> None:  # type: ignore[no-untyped-def]
    decided_world(reviewer, truthful_training=True)
    candidate = refit.matching_refit(by=admin_user)
    assert candidate.metrics["after"]["brier_skill"] >= candidate.metrics["before"]["brier_skill"]
    versions.model_version_promote(version=candidate, by=admin_user)
    where = str(store / candidate.artifact_dir)
    assert services.active_matching_artifact_dir() == where
    # The Spark job's driver reads the same version (pipeline/sql/read_matching_artifact.sql) and
    # builds its index with that artifact, so both paths score alike.
    assert read_matching_artifact_dir(database_url_for_job()) == candidate.artifact_dir

    class Store:
        def read_match_index(self, key: str) -> bytes | None:
            return None

        def write_match_index(self, key: str, data: bytes, entries: int) -> None:
            pass

        def read_matching_artifact_dir(self) -> str:
            return candidate.artifact_dir

    library = [entry.as_engine_entry() for entry in services.library_entries()]
    prepared = prepare_library(Store(), library, 20)
    assert prepared.artifact_dir == where and prepared.index().verifier is not None

    versions.model_version_rollback(kind=ModelKind.MATCHING, by=admin_user)
    assert learning.active_version(ModelKind.MATCHING).label == "shipped" and services.active_matching_artifact_dir() == ""
