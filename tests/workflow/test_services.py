"""Every workflow service: the allowed transition with its audit row, and the refusals."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from factcheck.accounts.roles import Role
from factcheck.accounts.services import user_create_with_role
from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, Evidence, Verdict
from factcheck.claims.workflow import services
from factcheck.claims.workflow.errors import HeldByOther, StaleVersion, TransitionNotAllowed
from tests.conftest import PERSONA_PASSWORD
from tests.workflow.factories import make_claim

pytestmark = pytest.mark.django_db

S = Claim.Status


@pytest.fixture
def claim() -> Claim:
    return make_claim()


@pytest.fixture
def second_reviewer(db):  # type: ignore[no-untyped-def]
    return user_create_with_role(username="rob-reviewer", role=Role.REVIEWER, password=PERSONA_PASSWORD)[0]


def events(claim: Claim) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(object_type="claim", object_id=claim.pk).order_by("id"))


def assert_unchanged(claim: Claim) -> None:
    before = (claim.cluster.status, claim.cluster.assignee_id, claim.cluster.version)
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.assignee_id, claim.cluster.version) == before


# --- triage ----------------------------------------------------------------------------------


def test_check_it_moves_new_to_check_with_audit_row(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    services.claim_mark_check(claim=claim, actor=reviewer, expected_version=1)
    claim.refresh_from_db()
    assert claim.cluster.status == S.CHECK and claim.cluster.version == 2
    [event] = events(claim)
    assert (event.verb, event.actor, event.before["status"], event.after["status"], event.after["version"]) == (
        "claim.check", reviewer, "new", "check", 2,
    )


def test_dismiss_needs_a_reason_and_records_it(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError):
        services.claim_dismiss(claim=claim, actor=reviewer, reason="  ")
    assert events(claim) == []
    services.claim_dismiss(claim=claim, actor=reviewer, reason="Opinion, not a checkable fact")
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.dismiss_reason) == (S.DISMISSED, "Opinion, not a checkable fact")
    [event] = events(claim)
    assert (event.verb, event.comment, event.before["status"], event.after["status"]) == (
        "claim.dismiss", "Opinion, not a checkable fact", "new", "dismissed",
    )


def test_dismissed_claim_can_be_reconsidered(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    services.claim_dismiss(claim=claim, actor=reviewer, reason="dup")
    services.claim_mark_check(claim=claim, actor=reviewer)
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.dismiss_reason) == (S.CHECK, "")
    assert [e.verb for e in events(claim)] == ["claim.dismiss", "claim.check"]


@pytest.mark.parametrize("status", [S.DRAFTED, S.APPROVED, S.RETURNED])
def test_triage_refused_once_a_verdict_exists(status: str, reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=status)
    with pytest.raises(TransitionNotAllowed):
        services.claim_dismiss(claim=claim, actor=reviewer, reason="late")
    with pytest.raises(TransitionNotAllowed):
        services.claim_mark_check(claim=claim, actor=reviewer)
    assert_unchanged(claim)
    assert events(claim) == []


def test_research_from_check_assigns_the_researcher(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TransitionNotAllowed):
        services.claim_start_research(claim=claim, actor=reviewer)
    services.claim_mark_check(claim=claim, actor=reviewer)
    services.claim_start_research(claim=claim, actor=reviewer)
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.assignee) == (S.IN_RESEARCH, reviewer)
    event = events(claim)[-1]
    assert (event.verb, event.before["assignee"], event.after["assignee"]) == ("claim.research", None, reviewer.username)


def test_set_status_dispatches_and_refuses_verdict_states(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    services.claim_set_status(claim=claim, actor=reviewer, status=S.CHECK)
    with pytest.raises(TransitionNotAllowed):
        services.claim_set_status(claim=claim, actor=reviewer, status=S.APPROVED)
    with pytest.raises(ValidationError):
        services.claim_set_status(claim=claim, actor=reviewer, status="published!")
    claim.refresh_from_db()
    assert claim.cluster.status == S.CHECK


def test_outsider_may_do_nothing(claim: Claim, outsider) -> None:  # type: ignore[no-untyped-def]
    for call in (
        lambda: services.claim_mark_check(claim=claim, actor=outsider),
        lambda: services.claim_dismiss(claim=claim, actor=outsider, reason="x"),
        lambda: services.claim_assign(claim=claim, actor=outsider, assignee=outsider),
        lambda: services.claim_tag(claim=claim, actor=outsider, add=["x"]),
        lambda: services.annotation_add(claim=claim, actor=outsider, body="x"),
        lambda: services.verdict_draft(claim=claim, actor=outsider, rating="false", headline="h", explanation="e"),
    ):
        with pytest.raises(PermissionDenied):
            call()
    assert_unchanged(claim)
    assert events(claim) == []


# --- assignment ------------------------------------------------------------------------------


def test_reviewer_takes_and_releases_a_claim(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    services.claim_assign(claim=claim, actor=reviewer, assignee=reviewer)
    claim.refresh_from_db()
    assert claim.cluster.assignee == reviewer
    services.claim_assign(claim=claim, actor=reviewer, assignee=None)
    claim.refresh_from_db()
    assert claim.cluster.assignee is None
    assert [(e.verb, e.after["assignee"]) for e in events(claim)] == [("claim.assign", reviewer.username), ("claim.release", None)]


def test_taking_a_held_claim_asks_first(claim: Claim, reviewer, second_reviewer) -> None:  # type: ignore[no-untyped-def]
    services.claim_assign(claim=claim, actor=reviewer, assignee=reviewer)
    with pytest.raises(HeldByOther) as refused:
        services.claim_assign(claim=claim, actor=second_reviewer, assignee=second_reviewer)
    assert refused.value.holder == reviewer and "rita-reviewer is working on this claim" in refused.value.message
    with pytest.raises(HeldByOther):
        services.claim_mark_check(claim=claim, actor=second_reviewer)
    services.claim_assign(claim=claim, actor=second_reviewer, assignee=second_reviewer, force=True)
    claim.refresh_from_db()
    assert claim.cluster.assignee == second_reviewer
    event = events(claim)[-1]
    assert (event.before["assignee"], event.after["assignee"]) == (reviewer.username, second_reviewer.username)


def test_only_editors_assign_others(claim: Claim, reviewer, second_reviewer, editor, outsider) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PermissionDenied):
        services.claim_assign(claim=claim, actor=reviewer, assignee=second_reviewer)
    services.claim_assign(claim=claim, actor=editor, assignee=second_reviewer)
    with pytest.raises(PermissionDenied):
        services.claim_assign(claim=claim, actor=reviewer, assignee=None)
    with pytest.raises(ValidationError):
        services.claim_assign(claim=claim, actor=editor, assignee=outsider)
    claim.refresh_from_db()
    assert claim.cluster.assignee == second_reviewer
    assert [e.actor for e in events(claim)] == [editor]


def test_stale_version_is_refused_with_what_changed(claim: Claim, reviewer, second_reviewer) -> None:  # type: ignore[no-untyped-def]
    services.claim_dismiss(claim=claim, actor=second_reviewer, reason="Satire", expected_version=1)
    with pytest.raises(StaleVersion) as refused:
        services.claim_mark_check(claim=claim, actor=reviewer, expected_version=1)
    assert refused.value.current_version == 2
    assert [(e.verb, e.actor, e.comment) for e in refused.value.changes] == [("claim.dismiss", second_reviewer, "Satire")]
    claim.refresh_from_db()
    assert claim.cluster.status == S.DISMISSED
    assert len(events(claim)) == 1


def test_tags_are_normalised_and_audited(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    services.claim_tag(claim=claim, actor=reviewer, add=["  Immigration ", "immigration", "ICE"])
    services.claim_tag(claim=claim, actor=reviewer, add=["crime"], remove=["ice"])
    claim.refresh_from_db()
    assert claim.cluster.tags == ["immigration", "crime"]
    assert [e.after["tags"] for e in events(claim)] == [["immigration", "ice"], ["immigration", "crime"]]


# --- annotations and evidence ----------------------------------------------------------------


def test_annotation_and_evidence_are_recorded(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    note = services.annotation_add(claim=claim, actor=reviewer, body="Called ICE press office.")
    evidence = services.evidence_add(
        claim=claim, actor=reviewer, kind=Evidence.Kind.OFFICIAL_STATISTIC,
        url="https://www.ice.gov/statistics", title="ICE annual report", note="Table 3",
    )
    assert (note.author, evidence.added_by, evidence.kind) == (reviewer, reviewer, "official_statistic")
    assert [e.verb for e in events(claim)] == ["annotation.add", "evidence.add"]
    with pytest.raises(ValidationError):
        services.evidence_add(claim=claim, actor=reviewer, kind="rumour", url="https://x.example", title="t")
    with pytest.raises(ValidationError):
        services.evidence_add(claim=claim, actor=reviewer, kind="other", url="javascript:alert(1)", title="t")
    assert Evidence.objects.filter(claim=claim).count() == 1


# --- verdicts --------------------------------------------------------------------------------


def draft(claim: Claim, actor, **overrides) -> Verdict:  # type: ignore[no-untyped-def]
    values = {"rating": "mostly_false", "headline": "Arrests were lower than claimed", "explanation": "ICE data shows 1,100."}
    return services.verdict_draft(claim=claim, actor=actor, **{**values, **overrides})


def test_full_flow_draft_return_redraft_approve(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=reviewer)
    evidence = services.evidence_add(claim=claim, actor=reviewer, kind="court_record", url="https://court.example/1", title="Docket")
    verdict = draft(claim, reviewer, evidence_ids=[evidence.pk])
    claim.refresh_from_db()
    assert (claim.cluster.status, verdict.status, verdict.revision, list(verdict.evidence.all())) == (S.DRAFTED, "draft", 1, [evidence])

    services.verdict_return(verdict=verdict, actor=editor, comment="Cite the May figure", expected_version=verdict.version)
    verdict.refresh_from_db()
    claim.refresh_from_db()
    assert (claim.cluster.status, verdict.status, verdict.review_comment) == (S.RETURNED, "returned", "Cite the May figure")

    verdict = draft(claim, reviewer, explanation="ICE's May data shows 1,100.", expected_version=verdict.version)
    assert (verdict.revision, verdict.status) == (1, "draft")
    services.verdict_approve(verdict=verdict, actor=editor, expected_version=verdict.version)
    verdict.refresh_from_db()
    claim.refresh_from_db()
    assert (claim.cluster.status, verdict.status, verdict.approved_by) == (S.APPROVED, "approved", editor)
    assert verdict.approved_at is not None
    assert [e.verb for e in events(claim)] == ["evidence.add", "verdict.draft", "verdict.return", "verdict.edit", "verdict.approve"]
    approve = events(claim)[-1]
    assert (approve.actor, approve.before["status"], approve.after["status"], approve.after["verdict_status"]) == (
        editor, "drafted", "approved", "approved",
    )


def test_author_cannot_approve_own_verdict(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=editor)
    verdict = draft(claim, editor)
    with pytest.raises(PermissionDenied):
        services.verdict_approve(verdict=verdict, actor=editor)
    with pytest.raises(PermissionDenied):
        services.verdict_approve(verdict=verdict, actor=reviewer)
    verdict.refresh_from_db()
    assert verdict.status == "draft"
    assert [e.verb for e in events(claim)] == ["verdict.draft"]


def test_resaving_a_draft_unchanged_keeps_its_first_writer_from_approving(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    other_editor = user_create_with_role(username="erin-editor", role=Role.EDITOR, password=PERSONA_PASSWORD)[0]
    claim = make_claim(status=S.IN_RESEARCH, assignee=editor)
    verdict = draft(claim, editor)
    # A reviewer takes it over and saves the same words: the last to save is now the author.
    verdict = draft(claim, reviewer, expected_version=verdict.version, force=True)
    assert verdict.author == reviewer
    assert sorted(verdict.contributor_ids) == sorted([editor.pk, reviewer.pk])
    for review in (services.verdict_approve, lambda **kw: services.verdict_return(comment="ok", **kw)):
        with pytest.raises(PermissionDenied):
            review(verdict=verdict, actor=editor)
    verdict.refresh_from_db()
    assert (verdict.status, verdict.approved_by) == ("draft", None)
    assert [e.verb for e in events(claim)] == ["verdict.draft", "verdict.edit"]
    services.verdict_approve(verdict=verdict, actor=other_editor)
    verdict.refresh_from_db()
    assert (verdict.status, verdict.approved_by) == ("approved", other_editor)


def test_a_new_revision_counts_the_writers_of_the_text_it_starts_from(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    other_editor = user_create_with_role(username="erin-editor", role=Role.EDITOR, password=PERSONA_PASSWORD)[0]
    claim = make_claim(status=S.IN_RESEARCH, assignee=editor)
    first = draft(claim, editor)
    services.verdict_approve(verdict=first, actor=other_editor)
    services.claim_assign(claim=claim, actor=other_editor, assignee=reviewer)
    second = draft(claim, reviewer, rating="false")
    assert second.revision == 2 and sorted(second.contributor_ids) == sorted([editor.pk, reviewer.pk])
    with pytest.raises(PermissionDenied):
        services.verdict_approve(verdict=second, actor=editor)
    services.verdict_approve(verdict=second, actor=other_editor)
    second.refresh_from_db()
    assert second.status == "approved"


def test_migration_backfills_writers_from_the_audit_trail(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    from importlib import import_module

    from django.db import connection

    backfill = import_module("factcheck.claims.migrations.0011_verdict_contributors").BACKFILL
    other_editor = user_create_with_role(username="erin-editor", role=Role.EDITOR, password=PERSONA_PASSWORD)[0]
    claim = make_claim(status=S.IN_RESEARCH, assignee=editor)
    first = draft(claim, editor)
    first = draft(claim, reviewer, expected_version=first.version, force=True)
    services.verdict_approve(verdict=first, actor=other_editor)
    second = draft(claim, other_editor, rating="false", force=True)
    Verdict.objects.update(contributor_ids=[])
    with connection.cursor() as cursor:
        cursor.execute(backfill)
    first.refresh_from_db()
    second.refresh_from_db()
    assert sorted(first.contributor_ids) == sorted([editor.pk, reviewer.pk])
    assert sorted(second.contributor_ids) == sorted([editor.pk, reviewer.pk, other_editor.pk])


def test_free_text_over_its_limit_is_refused_by_every_service(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    from factcheck.claims import models as limits

    claim = make_claim(status=S.IN_RESEARCH, assignee=reviewer)
    with pytest.raises(ValidationError):
        services.annotation_add(claim=claim, actor=reviewer, body="n" * (limits.NOTE_MAX_CHARS + 1))
    with pytest.raises(ValidationError):
        services.evidence_add(
            claim=claim, actor=reviewer, kind="other", url="https://a.example", title="t", note="e" * (limits.EVIDENCE_NOTE_MAX_CHARS + 1)
        )
    with pytest.raises(ValidationError):
        draft(claim, reviewer, explanation="x" * 4_900_000)
    verdict = draft(claim, reviewer, explanation="x" * limits.EXPLANATION_MAX_CHARS)
    with pytest.raises(ValidationError):
        services.verdict_return(verdict=verdict, actor=editor, comment="c" * (limits.REVIEW_COMMENT_MAX_CHARS + 1))
    fresh = make_claim()
    with pytest.raises(ValidationError):
        services.claim_dismiss(claim=fresh, actor=reviewer, reason="r" * (limits.DISMISS_REASON_MAX_CHARS + 1))
    verdict.refresh_from_db()
    fresh.refresh_from_db()
    assert (verdict.status, verdict.review_comment, fresh.cluster.status) == ("draft", "", S.NEW)
    assert not claim.annotations.exists() and not claim.evidence.exists()
    assert [e.verb for e in events(claim)] == ["verdict.draft"] and events(fresh) == []


def test_return_needs_a_comment(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=reviewer)
    verdict = draft(claim, reviewer)
    with pytest.raises(ValidationError):
        services.verdict_return(verdict=verdict, actor=editor, comment="")
    verdict.refresh_from_db()
    assert verdict.status == "draft"


def test_approved_verdict_changes_only_through_a_new_revision(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=reviewer)
    first = draft(claim, reviewer)
    services.verdict_approve(verdict=first, actor=editor)
    with pytest.raises(TransitionNotAllowed):
        services.verdict_approve(verdict=first, actor=editor)
    second = draft(claim, reviewer, rating="false", headline="No, arrests fell", expected_version=None)
    first.refresh_from_db()
    claim.refresh_from_db()
    assert (first.revision, first.status, first.rating, first.headline) == (1, "approved", "mostly_false", "Arrests were lower than claimed")
    assert (second.revision, second.status, second.rating) == (2, "draft", "false")
    assert claim.cluster.status == S.DRAFTED
    assert events(claim)[-1].verb == "verdict.revise"
    services.verdict_approve(verdict=second, actor=editor)
    assert list(claim.verdicts.order_by("revision").values_list("revision", "status")) == [(1, "approved"), (2, "approved")]


def test_second_simultaneous_verdict_edit_is_refused_showing_differences(reviewer, second_reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=reviewer)
    verdict = draft(claim, reviewer)
    opened = verdict.version
    services.claim_assign(claim=claim, actor=editor, assignee=second_reviewer)
    draft(claim, second_reviewer, headline="Arrests were far lower", expected_version=opened)
    with pytest.raises(StaleVersion) as refused:
        draft(claim, reviewer, headline="Arrests were a bit lower", expected_version=opened, force=True)
    assert refused.value.differences["headline"] == ("Arrests were a bit lower", "Arrests were far lower")
    verdict.refresh_from_db()
    assert verdict.headline == "Arrests were far lower"


def test_verdict_fields_are_validated(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=reviewer)
    with pytest.raises(ValidationError):
        draft(claim, reviewer, headline="x" * 75)
    with pytest.raises(ValidationError):
        draft(claim, reviewer, rating="pants_on_fire")
    other = make_claim()
    foreign = services.evidence_add(claim=other, actor=reviewer, kind="other", url="https://a.example", title="t")
    with pytest.raises(ValidationError):
        draft(claim, reviewer, evidence_ids=[foreign.pk])
    claim.refresh_from_db()
    assert claim.cluster.status == S.IN_RESEARCH and not claim.verdicts.exists()


def test_cannot_draft_before_triage(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    with pytest.raises(TransitionNotAllowed):
        draft(claim, reviewer)
