"""Model versions: a refit from the desk's decisions is a candidate until an admin promotes
it, a worse one is never switched on, and a rollback restores the version before.

Personas: ada-admin (admin) may refit, promote and roll back; eddie-editor and rita-reviewer
may not see the page; oscar-outsider has no role.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from factcheck.audit.models import AuditEvent
from factcheck.learning import registry, selectors, services, tasks
from factcheck.learning.models import ModelKind, ModelVersion, RefitJob
from factcheck.runs.services import runs_reap

pytestmark = pytest.mark.django_db

KIND = ModelKind.CHECKWORTHINESS


@pytest.fixture
def store(settings, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_MODEL_STORE = tmp_path
    return tmp_path


def metrics(before: float, after: float) -> dict[str, Any]:
    return {"primary": "average_precision", "before": {"average_precision": before}, "after": {"average_precision": after}, "held_out": 40}


def candidate(store: Path, label: str, *, before: float, after: float, by=None) -> ModelVersion:  # type: ignore[no-untyped-def]
    (store / label).mkdir()
    return services.model_version_register(kind=KIND, label=label, artifact_dir=label, metrics=metrics(before, after), by=by)


def test_each_kind_starts_with_its_shipped_version_active() -> None:
    for kind in ModelKind.values:
        version = selectors.active_version(kind)
        assert (version.label, version.is_shipped, services.model_store_path(version)) == ("shipped", True, None)


def test_a_database_that_lost_its_versions_scores_with_the_shipped_one_again() -> None:
    """A transactional test's flush (or a hand-made DELETE) removes the data migration's rows:
    the next run or re-match gets the shipped version back instead of failing."""
    ModelVersion.objects.all().delete()
    assert selectors.active_version(KIND).label == "shipped"
    assert ModelVersion.objects.filter(kind=KIND, state="active").count() == 1
    shipped = ModelVersion.objects.get(kind=KIND)
    ModelVersion.objects.filter(pk=shipped.pk).update(state="retired")
    assert selectors.active_version(KIND).pk == shipped.pk


def test_a_candidates_artifact_must_lie_under_the_model_store(store: Path, admin_user) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match="No artifact directory"):
        services.model_version_register(kind=KIND, label="v2", artifact_dir="missing", metrics={}, by=admin_user)
    (store.parent / "outside").mkdir(exist_ok=True)
    with pytest.raises(ValidationError, match="No artifact directory"):
        services.model_version_register(kind=KIND, label="v2", artifact_dir="../outside", metrics={}, by=admin_user)
    with pytest.raises(ValidationError):
        services.model_version_register(kind=KIND, label="v2", artifact_dir="", metrics={}, by=admin_user)
    assert not ModelVersion.objects.filter(label="v2").exists()


def test_a_better_refit_is_promoted_and_the_shipped_version_retires(store: Path, admin_user) -> None:  # type: ignore[no-untyped-def]
    version = candidate(store, "v2", before=0.61, after=0.70, by=admin_user)
    assert selectors.active_version(KIND).label == "shipped"  # registering switches nothing on
    services.model_version_promote(version=version, by=admin_user)
    version.refresh_from_db()
    assert (version.state, version.promoted_by, services.model_store_path(version)) == ("active", admin_user, store / "v2")
    assert ModelVersion.objects.get(kind=KIND, label="shipped").state == "retired"
    event = AuditEvent.objects.get(verb="model_version.promote", object_id=version.pk)
    assert (event.actor, event.before, event.after) == (admin_user, {"active": "shipped"}, {"active": "v2"})


def test_a_refit_worse_on_the_held_out_decisions_is_not_switched_on(store: Path, admin_user) -> None:  # type: ignore[no-untyped-def]
    version = candidate(store, "v2", before=0.70, after=0.69)
    with pytest.raises(ValidationError, match="worse than the active one"):
        services.model_version_promote(version=version, by=admin_user)
    version.refresh_from_db()
    assert version.state == "candidate" and selectors.active_version(KIND).label == "shipped"
    assert not AuditEvent.objects.filter(verb="model_version.promote").exists()


def test_a_refit_without_held_out_figures_is_not_switched_on(store: Path, admin_user) -> None:  # type: ignore[no-untyped-def]
    (store / "v2").mkdir()
    version = services.model_version_register(kind=KIND, label="v2", artifact_dir="v2", metrics={"primary": "f1"}, by=admin_user)
    with pytest.raises(ValidationError, match="no figures"):
        services.model_version_promote(version=version, by=admin_user)


def test_only_a_candidate_is_promoted(store: Path, admin_user) -> None:  # type: ignore[no-untyped-def]
    version = candidate(store, "v2", before=0.5, after=0.6)
    services.model_version_promote(version=version, by=admin_user)
    with pytest.raises(ValidationError, match="Only a candidate"):
        services.model_version_promote(version=version, by=admin_user)


def test_rollback_restores_the_version_before_and_goes_back_step_by_step(store: Path, admin_user) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match="nothing to roll back to"):
        services.model_version_rollback(kind=KIND, by=admin_user)
    v2 = candidate(store, "v2", before=0.5, after=0.6)
    services.model_version_promote(version=v2, by=admin_user)
    v3 = candidate(store, "v3", before=0.6, after=0.65)
    services.model_version_promote(version=v3, by=admin_user)
    assert services.model_version_rollback(kind=KIND, by=admin_user).label == "v2"
    assert services.model_version_rollback(kind=KIND, by=admin_user).label == "shipped"
    assert ModelVersion.objects.filter(kind=KIND, state="active").count() == 1
    with pytest.raises(ValidationError, match="nothing to roll back to"):
        services.model_version_rollback(kind=KIND, by=admin_user)
    assert AuditEvent.objects.filter(verb="model_version.rollback").count() == 2
    # The other kind is untouched by all of this.
    assert selectors.active_version(ModelKind.MATCHING).label == "shipped"


# --- The page -------------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["outsider", "reviewer", "editor"])
def test_only_admins_see_the_page_or_act(client, request, store: Path, persona: str) -> None:  # type: ignore[no-untyped-def]
    version = candidate(store, "v2", before=0.5, after=0.6)
    client.force_login(request.getfixturevalue(persona))
    assert client.get(reverse("learning:versions")).status_code == 403
    assert client.post(reverse("learning:promote", args=[version.pk])).status_code == 403
    assert client.post(reverse("learning:rollback", args=[KIND])).status_code == 403
    assert client.post(reverse("learning:refit", args=[KIND])).status_code == 403
    version.refresh_from_db()
    assert version.state == "candidate" and not RefitJob.objects.exists()


def test_anonymous_visitors_are_sent_to_log_in(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("learning:versions"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_page_shows_both_figures_and_promotes_on_the_admins_word(client, store: Path, admin_user) -> None:  # type: ignore[no-untyped-def]
    version = candidate(store, "v2", before=0.612, after=0.704)
    client.force_login(admin_user)
    page = client.get(reverse("learning:versions")).content.decode()
    assert "v2" in page and "0.612" in page and "0.704" in page and "Promote" in page and "on 40 held-out decisions" in page
    assert client.get(reverse("learning:promote", args=[version.pk])).status_code == 405
    response = client.post(reverse("learning:promote", args=[version.pk]), follow=True)
    assert "v2 is now the active check-worthiness model." in response.content.decode()
    version.refresh_from_db()
    assert version.state == "active"
    response = client.post(reverse("learning:rollback", args=[KIND]), follow=True)
    assert "shipped is the active check-worthiness model again" in response.content.decode()


def test_the_page_says_why_a_worse_refit_was_not_promoted(client, store: Path, admin_user) -> None:  # type: ignore[no-untyped-def]
    version = candidate(store, "v2", before=0.70, after=0.60)
    client.force_login(admin_user)
    page = client.post(reverse("learning:promote", args=[version.pk]), follow=True).content.decode()
    assert "Not promoted" in page and "worse than the active one" in page
    version.refresh_from_db()
    assert version.state == "candidate"


def test_an_unknown_kind_is_a_404(client, admin_user) -> None:  # type: ignore[no-untyped-def]
    client.force_login(admin_user)
    assert client.post(reverse("learning:rollback", args=["astrology"])).status_code == 404


# --- Refits ---------------------------------------------------------------------------------


@pytest.fixture
def refit_registered(monkeypatch, store: Path):  # type: ignore[no-untyped-def]
    """A refit as a domain writes one: an artifact under the store, then a registered candidate."""
    calls: list[Any] = []

    def refit(*, by):  # type: ignore[no-untyped-def]
        calls.append(by)
        label = f"refit-{len(calls)}"
        (store / label).mkdir()
        (store / label / "model.json").write_text("{}")
        return services.model_version_register(kind=KIND, label=label, artifact_dir=label, metrics=metrics(0.5, 0.55), by=by)

    monkeypatch.setitem(registry._REFITS, KIND, refit)
    return calls


def test_refit_now_queues_one_job_runs_it_and_leaves_a_candidate(client, admin_user, refit_registered, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    client.force_login(admin_user)
    assert "Refit now" in client.get(reverse("learning:versions")).content.decode()
    with django_capture_on_commit_callbacks(execute=False):
        page = client.post(reverse("learning:refit", args=[KIND]), follow=True).content.decode()
    assert "queued" in page
    job = RefitJob.objects.get()
    assert job.status == "queued" and job.requested_by == admin_user
    page = client.post(reverse("learning:refit", args=[KIND]), follow=True).content.decode()
    assert "already queued or running" in page and RefitJob.objects.count() == 1
    tasks.learning_refit.apply(args=(job.pk,))
    tasks.learning_refit.apply(args=(job.pk,))  # a second delivery finds the job taken
    job.refresh_from_db()
    assert (job.status, job.version.label, job.version.state) == ("done", "refit-1", "candidate")
    assert refit_registered == [admin_user]
    assert selectors.active_version(KIND).label == "shipped"


def test_a_kind_without_a_refit_offers_none(client, admin_user, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The matcher's domain registers its refit (factchecks.refit); here it has none.
    monkeypatch.delitem(registry._REFITS, ModelKind.MATCHING, raising=False)
    client.force_login(admin_user)
    # The claims domain registers the check-worthiness kind's refit; matching has none here.
    page = client.get(reverse("learning:versions")).content.decode()
    assert f'action="{reverse("learning:refit", args=[ModelKind.MATCHING])}"' not in page
    assert f'action="{reverse("learning:refit", args=[ModelKind.CHECKWORTHINESS])}"' in page
    page = client.post(reverse("learning:refit", args=[ModelKind.MATCHING]), follow=True).content.decode()
    assert "No refit is available" in page and not RefitJob.objects.exists()


def test_a_failing_refit_says_why_and_the_kind_can_be_refit_again(monkeypatch, admin_user, store: Path) -> None:  # type: ignore[no-untyped-def]
    def refit(*, by):  # type: ignore[no-untyped-def]
        raise RuntimeError("only 3 decisions: too few to hold any out")

    monkeypatch.setitem(registry._REFITS, KIND, refit)
    job = services.refit_request(kind=KIND, by=admin_user)
    tasks.learning_refit.apply(args=(job.pk,))
    job.refresh_from_db()
    assert job.status == "failed" and "too few to hold any out" in job.error
    assert services.refit_request(kind=KIND, by=admin_user).status == "queued"


def test_a_refit_whose_worker_died_is_failed_by_the_reaper(admin_user, refit_registered, settings) -> None:  # type: ignore[no-untyped-def]
    job = services.refit_request(kind=KIND, by=admin_user)
    assert services.refit_job_claim(job_id=job.pk) is not None
    # Killed mid-refit: the row stays "running" with no one to finish it.
    RefitJob.objects.filter(pk=job.pk).update(started_at=timezone.now() - timezone.timedelta(seconds=settings.FACTCHECK_REFIT_TIME_LIMIT + 120))
    assert job.pk in runs_reap().refits_failed
    job.refresh_from_db()
    assert job.status == "failed" and "stopped before the refit finished" in job.error
    assert services.refit_request(kind=KIND, by=admin_user).status == "queued"


def test_a_refit_whose_message_was_lost_is_sent_by_the_reaper(admin_user, refit_registered, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    job = services.refit_request(kind=KIND, by=admin_user)
    RefitJob.objects.filter(pk=job.pk).update(error=services.REFIT_UNAVAILABLE)
    sent: list[Any] = []
    monkeypatch.setattr("factcheck.queueing.task_send", lambda task, *, args, queue: sent.append((task.name, args)) or True)
    assert job.pk in runs_reap().refits_sent
    assert sent == [("factcheck.learning.tasks.learning_refit", (job.pk,))]
