"""The claim page and its actions, per persona: happy path, refusals, side effects, audit rows."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from factcheck.accounts.roles import Role
from factcheck.accounts.services import user_create_with_role
from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, Evidence, Verdict
from factcheck.claims.workflow import services
from tests.conftest import PERSONA_PASSWORD
from tests.workflow.factories import make_claim

pytestmark = pytest.mark.django_db

S = Claim.Status


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def verbs(claim: Claim) -> list[str]:
    return list(AuditEvent.objects.filter(object_type="claim", object_id=claim.pk).order_by("id").values_list("verb", flat=True))


@pytest.fixture
def claim() -> Claim:
    return make_claim()


ACTIONS = ["triage", "assign", "tags", "annotate", "evidence", "verdict"]


@pytest.mark.parametrize("name", ACTIONS)
def test_actions_refuse_get_outsiders_and_anonymous(name: str, claim: Claim, outsider, reviewer) -> None:  # type: ignore[no-untyped-def]
    url = reverse(f"claims:{name}", args=[claim.pk])
    assert Client().post(url, {"action": "check"}).status_code == 302  # to the login page
    assert logged_in(outsider).post(url, {"action": "check", "to": "me", "body": "x"}).status_code == 403
    assert logged_in(reviewer).get(url).status_code == 405
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.assignee_id, claim.cluster.version) == (S.NEW, None, 1)
    assert verbs(claim) == []


def test_missing_claim_is_404_for_reviewers(reviewer) -> None:  # type: ignore[no-untyped-def]
    assert logged_in(reviewer).post(reverse("claims:triage", args=[999999]), {"action": "check"}).status_code == 404


def test_claim_page_shows_paragraph_fields_and_timeline(claim: Claim, reviewer, editor, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    services.annotation_add(claim=claim, actor=reviewer, body="See **table 3**. <script>alert(1)</script>")
    twin = make_claim(outlet="Breitbart News")
    Claim.objects.filter(pk__in=[claim.pk, twin.pk]).update(cluster_id=claim.claim_key)
    services.claim_mark_check(claim=claim, actor=reviewer)
    for n in range(5):
        services.annotation_add(claim=claim, actor=reviewer, body=f"note {n}")
        services.evidence_add(claim=claim, actor=reviewer, kind="other", url=f"https://a.example/{n}", title=f"source {n}")
    cited = list(claim.evidence.values_list("pk", flat=True))
    services.verdict_draft(claim=claim, actor=reviewer, rating="false", headline="No", explanation="e", evidence_ids=cited)
    # A constant number of queries however many notes, sources and revisions: session, user,
    # role, claim, appearances, notes, evidence, verdicts, cited evidence, timeline, the
    # organisation's demo banner, the navigation's two counts (cached afterwards) (+ the
    # assignable users for an editor).
    editor_client = logged_in(editor)
    with django_assert_max_num_queries(13):
        assert editor_client.get(reverse("claims:detail", args=[claim.pk])).status_code == 200
    client = logged_in(reviewer)
    with django_assert_max_num_queries(10):
        page = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert "Breitbart News" in page and "Appearances (2)" in page
    assert '<p class="paragraph" id="claim-paragraph"><mark class="claim">ICE detained nearly 1,500 people in May.</mark> Nobody disputed it.</p>' in page
    assert "<strong>table 3</strong>" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "rita-reviewer</strong> added a note" in page
    assert 'data-key="1"' in page and 'data-key="7"' in page


def test_reviewer_triages_with_buttons(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    response = client.post(reverse("claims:triage", args=[claim.pk]), {"action": "check", "version": 1})
    assert response.status_code == 302 and response["Location"] == reverse("claims:detail", args=[claim.pk])
    response = client.post(reverse("claims:triage", args=[claim.pk]), {"action": "research", "version": 2})
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.assignee) == (S.IN_RESEARCH, reviewer)
    assert verbs(claim) == ["claim.check", "claim.research"]


def test_dismiss_without_reason_is_a_clear_400(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    response = logged_in(reviewer).post(reverse("claims:triage", args=[claim.pk]), {"action": "dismiss", "reason": " ", "version": 1})
    assert response.status_code == 400
    assert "Say why the claim is dismissed." in response.content.decode()
    claim.refresh_from_db()
    assert claim.cluster.status == S.NEW


def test_refused_transition_is_a_400_with_the_reason(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.APPROVED)
    response = logged_in(reviewer).post(reverse("claims:triage", args=[claim.pk]), {"action": "dismiss", "reason": "late"})
    assert response.status_code == 400
    assert "Cannot dismiss it: the claim is approved." in response.content.decode()


def test_stale_triage_is_refused_showing_who_changed_what(claim: Claim, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    services.claim_dismiss(claim=claim, actor=editor, reason="Satire site")
    response = logged_in(reviewer).post(reverse("claims:triage", args=[claim.pk]), {"action": "check", "version": 1})
    body = response.content.decode()
    assert response.status_code == 409
    assert "Someone else changed this claim" in body and "eddie-editor" in body and "Satire site" in body
    claim.refresh_from_db()
    assert claim.cluster.status == S.DISMISSED


def test_taking_a_held_claim_asks_then_takes(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    other = user_create_with_role(username="rob-reviewer", role=Role.REVIEWER, password=PERSONA_PASSWORD)[0]
    services.claim_assign(claim=claim, actor=other, assignee=other)
    client = logged_in(reviewer)
    response = client.post(reverse("claims:assign", args=[claim.pk]), {"to": "me", "version": 2})
    assert response.status_code == 409
    body = response.content.decode()
    assert "rob-reviewer is working on this claim. Take it over?" in body and 'name="force" value="on"' in body
    claim.refresh_from_db()
    assert claim.cluster.assignee == other
    response = client.post(reverse("claims:assign", args=[claim.pk]), {"to": "me", "version": 2, "force": "on"})
    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.cluster.assignee == reviewer


def test_reviewer_cannot_assign_others_but_editor_can(claim: Claim, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    response = logged_in(reviewer).post(reverse("claims:assign", args=[claim.pk]), {"to": str(editor.pk)})
    assert response.status_code == 403
    response = logged_in(editor).post(reverse("claims:assign", args=[claim.pk]), {"to": str(reviewer.pk)})
    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.cluster.assignee == reviewer


def test_tags_notes_and_evidence(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    client.post(reverse("claims:tags", args=[claim.pk]), {"add": "Immigration, crime"})
    client.post(reverse("claims:tags", args=[claim.pk]), {"remove": "crime"})
    client.post(reverse("claims:annotate", args=[claim.pk]), {"body": "Asked ICE for the May table."})
    ok = client.post(reverse("claims:evidence", args=[claim.pk]), {"kind": "press_release", "url": "https://www.ice.gov/news/1", "title": "ICE release"})
    bad = client.post(reverse("claims:evidence", args=[claim.pk]), {"kind": "press_release", "url": "not a url", "title": "x"})
    assert ok.status_code == 302 and bad.status_code == 400
    claim.refresh_from_db()
    assert claim.cluster.tags == ["immigration"]
    assert claim.annotations.get().body == "Asked ICE for the May table."
    assert list(Evidence.objects.filter(claim=claim).values_list("kind", "title", "added_by")) == [("press_release", "ICE release", reviewer.pk)]
    assert verbs(claim) == ["claim.tag", "claim.tag", "annotation.add", "evidence.add"]


def test_free_text_over_its_limit_is_a_400_and_nothing_is_stored(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    from factcheck.claims import models as limits

    claim = make_claim(status=S.IN_RESEARCH, assignee=reviewer)
    client = logged_in(reviewer)
    huge = "x" * 4_900_000  # what once made a claim page time out
    posts = {
        "annotate": {"body": "n" * (limits.NOTE_MAX_CHARS + 1)},
        "evidence": {"kind": "other", "url": "https://a.example", "title": "t", "note": "e" * (limits.EVIDENCE_NOTE_MAX_CHARS + 1)},
        "verdict": {"rating": "false", "headline": "No", "explanation": huge},
        "triage": {"action": "dismiss", "reason": "r" * (limits.DISMISS_REASON_MAX_CHARS + 1)},
    }
    # The body limit for signed-in requests (DATA_UPLOAD_MAX_MEMORY_SIZE) lets these through to the forms.
    for name, data in posts.items():
        assert client.post(reverse(f"claims:{name}", args=[claim.pk]), data).status_code == 400, name
    verdict = services.verdict_draft(claim=claim, actor=reviewer, rating="false", headline="No", explanation="Short.")
    review = logged_in(editor).post(
        reverse("claims:verdict-review", args=[verdict.pk]),
        {"decision": "return", "comment": "c" * (limits.REVIEW_COMMENT_MAX_CHARS + 1), "version": verdict.version},
    )
    assert review.status_code == 400
    verdict.refresh_from_db()
    claim.refresh_from_db()
    assert (verdict.status, verdict.explanation, claim.cluster.status) == ("draft", "Short.", S.DRAFTED)
    assert not claim.annotations.exists() and not claim.evidence.exists()
    assert verbs(claim) == ["verdict.draft"]


def test_a_note_or_evidence_form_sent_twice_is_stored_once(claim: Claim, reviewer) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    page = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    keys = re.findall(r'name="submission" value="([0-9a-f-]{36})"', page)
    assert len(set(keys)) == 2  # one per form, fresh on every page
    note = {"body": "Asked ICE for the May table.", "submission": keys[-1]}
    source = {"kind": "press_release", "url": "https://www.ice.gov/news/1", "title": "ICE release", "submission": keys[0]}
    for _ in range(2):  # a double click
        assert client.post(reverse("claims:annotate", args=[claim.pk]), note).status_code == 302
        assert client.post(reverse("claims:evidence", args=[claim.pk]), source).status_code == 302
    assert claim.annotations.count() == 1 and claim.evidence.count() == 1
    assert verbs(claim) == ["annotation.add", "evidence.add"]
    # The same words sent from a new form are a new note.
    client.post(reverse("claims:annotate", args=[claim.pk]), {**note, "submission": str(uuid.uuid4())})
    assert claim.annotations.count() == 2


def test_verdict_draft_approve_through_views(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=reviewer)
    evidence = services.evidence_add(claim=claim, actor=reviewer, kind="official_statistic", url="https://stats.example/t3", title="Table 3")
    client = logged_in(reviewer)
    too_long = client.post(reverse("claims:verdict", args=[claim.pk]), {"rating": "false", "headline": "x" * 75, "explanation": "e"})
    assert too_long.status_code == 400 and "x" * 75 in too_long.content.decode()  # the user's text is kept
    response = client.post(
        reverse("claims:verdict", args=[claim.pk]),
        {"rating": "mostly_false", "headline": "Fewer than claimed", "explanation": "Table 3 shows 1,100.", "evidence": [evidence.pk]},
    )
    assert response.status_code == 302
    verdict = Verdict.objects.get(claim=claim)
    assert (verdict.rating, verdict.author, list(verdict.evidence.all())) == ("mostly_false", reviewer, [evidence])
    # The author cannot approve (not an editor here: 403); an editor can.
    assert client.post(reverse("claims:verdict-review", args=[verdict.pk]), {"decision": "approve"}).status_code == 403
    editor_client = logged_in(editor)
    page = editor_client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert "Approve and publish" in page
    no_comment = editor_client.post(reverse("claims:verdict-review", args=[verdict.pk]), {"decision": "return", "version": verdict.version})
    assert no_comment.status_code == 400
    response = editor_client.post(reverse("claims:verdict-review", args=[verdict.pk]), {"decision": "approve", "version": verdict.version})
    assert response.status_code == 302
    verdict.refresh_from_db()
    claim.refresh_from_db()
    assert (verdict.status, verdict.approved_by, claim.cluster.status) == ("approved", editor, S.APPROVED)
    assert verbs(claim)[-2:] == ["verdict.draft", "verdict.approve"]


def test_editor_cannot_approve_own_verdict_through_the_view(editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=editor)
    verdict = services.verdict_draft(claim=claim, actor=editor, rating="true", headline="Right", explanation="Yes.")
    page = logged_in(editor).get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert "Approve and publish" not in page and "You wrote some of this revision; another editor must approve it" in page
    assert logged_in(editor).post(reverse("claims:verdict-review", args=[verdict.pk]), {"decision": "approve"}).status_code == 403
    verdict.refresh_from_db()
    assert verdict.status == "draft"


def test_resaving_an_editors_draft_does_not_let_the_editor_approve_it(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    """The sidestep: the editor drafts, a reviewer takes the claim and re-saves the draft
    unchanged (now its author), and the editor tries to approve their own words."""
    claim = make_claim(status=S.IN_RESEARCH, assignee=editor)
    verdict = services.verdict_draft(claim=claim, actor=editor, rating="true", headline="Right", explanation="Yes.")
    resaved = logged_in(reviewer).post(
        reverse("claims:verdict", args=[claim.pk]),
        {"rating": "true", "headline": "Right", "explanation": "Yes.", "version": verdict.version, "force": "on"},
    )
    assert resaved.status_code == 302
    verdict.refresh_from_db()
    assert verdict.author == reviewer and verdict.status == "draft"
    editor_client = logged_in(editor)
    page = editor_client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert "Approve and publish" not in page and "You wrote some of this revision" in page
    for decision in ({"decision": "approve"}, {"decision": "return", "comment": "fine by me"}):
        response = editor_client.post(reverse("claims:verdict-review", args=[verdict.pk]), {**decision, "version": verdict.version})
        assert response.status_code == 403
    verdict.refresh_from_db()
    claim.refresh_from_db()
    assert (verdict.status, verdict.approved_by, claim.cluster.status) == ("draft", None, S.DRAFTED)
    assert verbs(claim) == ["verdict.draft", "verdict.edit"]


def test_simultaneous_verdict_edits_second_is_refused_with_both_versions(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=reviewer)
    verdict = services.verdict_draft(claim=claim, actor=reviewer, rating="false", headline="Wrong", explanation="No.")
    opened = verdict.version
    first = logged_in(editor).post(
        reverse("claims:verdict", args=[claim.pk]),
        {"rating": "false", "headline": "Wrong, says ICE data", "explanation": "No.", "version": opened, "force": "on"},
    )
    assert first.status_code == 302
    second = logged_in(reviewer).post(
        reverse("claims:verdict", args=[claim.pk]),
        {"rating": "false", "headline": "Wrong by half", "explanation": "No.", "version": opened},
    )
    body = second.content.decode()
    assert second.status_code == 409
    assert "Someone else saved this verdict" in body and "Wrong by half" in body and "Wrong, says ICE data" in body
    verdict.refresh_from_db()
    assert verdict.headline == "Wrong, says ICE data"
