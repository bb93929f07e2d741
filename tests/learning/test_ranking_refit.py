"""The desk teaches the ranking (issue 29, item 5): a reviewer's triage decision is kept as a
label with what the pipeline found of the claim and the model version that scored it; an admin
refits the ranking model from the base data and those labels, sees it against the active
version on held-out decisions, and promotes it; the next run scores with it.

Personas: rita-reviewer triages; ada-admin refits and promotes; eddie-editor may not refit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import CommandError

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim, TriageLabel
from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS
from factcheck.claims.ranking.refit import checkworthiness_refit
from factcheck.claims.workflow import services
from factcheck.learning import selectors
from factcheck.learning.models import ModelKind, ModelVersion
from factcheck.learning.services import model_store_path, model_version_promote
from factcheck.runs.spark import active_scoring_model, job_arguments
from pipeline.contestability_training import default_bbc_path, is_held_out
from pipeline.nlp.contestability import SHIPPED_DIR, ClaimView, load_model

pytestmark = pytest.mark.django_db

BBC = default_bbc_path(Path(django_settings.CHECKWORTHINESS_DATA_DIR))
needs_bbc = pytest.mark.skipif(not BBC.exists(), reason="BBC News corpus not found in ../shared/data (the refit's base data)")
SIGNALS = {"public_interest": 0.85, "topic": "immigration", "source": 1.0, "specificity": 0.4, "routine": 0.0, "contestability": 0.1}


@pytest.fixture
def store(settings, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_MODEL_STORE = tmp_path
    return tmp_path


def make_claim(n: int, sentence: str, *, context: str = "") -> Claim:
    text = f"Story {n}. {sentence}"
    article, _ = article_ingest(data=ArticleInput(text=text, outlet=f"Outlet {n}"), batch=None)
    start = text.index(sentence)
    return Claim.objects.create(
        article=article, claim_key=f"{n:040x}", sentence=sentence, start_offset=start, end_offset=len(text), score=0.3,
        claim_type="causal", claim_types=["causal"], attribution="reported", rank_signals=SIGNALS, context=context,
        cluster_key=f"{n:040x}", model_version=selectors.active_version(ModelKind.CHECKWORTHINESS),
    )


def test_each_triage_decision_is_kept_as_a_label_with_the_version_that_scored_it(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(1, "Sanctuary does not mean safer streets.", context="Lyons spoke on Fox.")
    services.claim_dismiss(claim=claim, actor=reviewer, reason="Not a claim: a slogan")
    label = TriageLabel.objects.get()
    assert (label.decision, label.sentence, label.context, label.article_id) == (
        "not_a_claim", "Sanctuary does not mean safer streets.", "Lyons spoke on Fox.", claim.article_id
    )
    assert label.model_version == selectors.active_version(ModelKind.CHECKWORTHINESS) and label.decided_by == reviewer
    assert label.claim_view == {"score": 0.3, "claim_type": "causal", "claim_types": ["causal"], "attribution": "reported", "rank_signals": SIGNALS}
    # Reconsidered: the appearance's latest decision replaces the earlier one.
    services.claim_mark_check(claim=Claim.objects.get(pk=claim.pk), actor=reviewer)
    assert list(TriageLabel.objects.values_list("decision", flat=True)) == ["check"]
    other = make_claim(2, "Shares in the firm rose 3% on Friday.")
    services.claim_dismiss(claim=other, actor=reviewer, reason="routine market report")
    assert TriageLabel.objects.get(claim=other).decision == "not_worth_checking"


# What the desk decided in the refit test: a US desk that checks what sanctuary-city officials
# assert, and passes over schedule and procedure. The refit must raise what this desk checks
# above what the shipped model (graded on UK news) gives it.
CHECKED = (
    "Sanctuary cities have given cover to criminal behaviour, leading to higher crime rates in {city}.",
    "The mayor's sanctuary policy means more criminal aliens out on the streets of {city}, the ICE director said.",
)
PASSED = (
    "The council meeting in {city} was moved to Thursday evening.",
    "The {city} hearing on the immigration ordinance resumes next week.",
)
CITIES = ("Boston", "Chicago", "Denver", "Seattle", "Portland", "Newark", "Austin", "Oakland", "Phoenix", "Tucson",
          "Dallas", "Miami", "Atlanta", "Detroit", "Memphis", "Omaha", "Tampa", "Fresno", "Reno", "Albany")


@needs_bbc
def test_an_admin_refits_from_the_desks_decisions_and_the_next_run_scores_with_the_promoted_version(  # type: ignore[no-untyped-def]
    reviewer, admin_user, store: Path
) -> None:
    n = 0
    for city in CITIES:
        for template in CHECKED:
            n += 1
            services.claim_mark_check(claim=make_claim(n, template.format(city=city)), actor=reviewer)
        for template in PASSED:
            n += 1
            services.claim_dismiss(claim=make_claim(n, template.format(city=city)), actor=reviewer, reason="nothing to check")
    held = [label for label in TriageLabel.objects.all() if is_held_out(f"desk:{label.article_id}")]
    assert held and {label.decision for label in held} == {"check", "not_worth_checking"}

    version = checkworthiness_refit(by=admin_user)
    assert (version.state, version.parent.label, version.created_by) == ("candidate", "shipped", admin_user)
    metrics = version.metrics
    assert metrics["primary"] == "average_precision" and metrics["held_out"] == len(held)
    assert metrics["trained_on"]["desk_labels"] == 80 - len(held) and metrics["trained_on"]["graded_bbc_claims"] > 800
    assert metrics["trained_on"]["out_of_genre_claims"] > 2000  # LIAR's statements and the debates' (../shared/data)
    # The desk's own held-out decisions: the refit ranks them no worse than the shipped model,
    # which, trained with US political claims beside the BBC ones, already ranks them well.
    assert metrics["after"]["average_precision"] >= metrics["before"]["average_precision"]
    path = model_store_path(version)
    assert path is not None and (path / "contestability.json").exists()
    refit, shipped = load_model(path), load_model(SHIPPED_DIR)
    view = ClaimView(CHECKED[0].format(city="Boston"), 0.3, "causal", ("causal",), "reported", SIGNALS)
    assert refit.probability(view) > shipped.probability(view)

    model_version_promote(version=version, by=admin_user)
    scoring = active_scoring_model()
    assert (scoring.artifact_dir, scoring.version_id) == (str(path), version.pk)
    arguments = job_arguments(run_id=5, model=scoring)
    assert arguments[-4:] == ["--model-dir", str(path), "--model-version-id", str(version.pk)]
    assert ModelVersion.objects.get(pk=version.pk).state == "active"


def test_the_refit_command_is_for_admins_only(editor) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match="is not an admin"):
        call_command("refit_checkworthiness", "--by", editor.username)
    with pytest.raises(CommandError, match="is not an admin"):
        call_command("refit_checkworthiness", "--by", "nobody-at-all")


def test_rescore_gives_stored_claims_contestability_and_the_active_version(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(1, "The Tories accuse Labour of raising taxes 66 times since coming to power in 1997.")
    Claim.objects.filter(pk=claim.pk).update(rank_signals={k: v for k, v in SIGNALS.items() if k != "contestability"}, model_version=None)
    call_command("rescore_claims")
    claim.refresh_from_db()
    expected = load_model().probability(
        ClaimView(claim.sentence, 0.3, "causal", ("causal",), "reported", {k: v for k, v in SIGNALS.items() if k != "contestability"})
    )
    # Scored by the model, not left at the stale value: a desk's kind of claim, far above an
    # official statistic read out from its own source with the same signals.
    routine = load_model().probability(
        ClaimView("The ONS says gross domestic product rose 0.7% in the three months to December.", 0.3, "causal", ("causal",), "reported",
                  {k: v for k, v in SIGNALS.items() if k != "contestability"})
    )
    assert claim.rank_signals["contestability"] == round(expected, 4) and expected > max(0.3, 10 * routine)
    assert claim.model_version == selectors.active_version(ModelKind.CHECKWORTHINESS)
    assert claim.priority_parts["contestability"] == round(DEFAULT_RANKING_WEIGHTS["contestability"] * round(expected, 4), 4)
