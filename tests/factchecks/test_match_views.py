"""A claim's library matches on its page, per persona: listing, confirm/reject, a verdict
started from a confirmed match, and the ClaimReview that then cites the earlier fact-check."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, Evidence, Verdict
from factcheck.claims.workflow import services as claim_services
from factcheck.factchecks.models import ClaimMatch, FactCheck
from tests.conftest import PERSONA_PASSWORD
from tests.reports.claimreview_validator import assert_valid_claimreview
from tests.reports.helpers import claim_in_article, publish

pytestmark = pytest.mark.django_db

SENTENCE = "ICE detained nearly 1,500 people in May."


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


@pytest.fixture
def claim() -> Claim:
    return claim_in_article(sentence=SENTENCE)


@pytest.fixture
def match(claim: Claim) -> ClaimMatch:
    earlier = FactCheck.objects.create(
        claim="ICE detained about 1,500 people in May", title="Did ICE detain 1,500 in May?", publisher="PolitiFact",
        external_id="15.json", rating_text="mostly-true", rating_value=4, url="https://www.politifact.com/factchecks/2024/jun/01/ice/",
        published_on=date(2024, 6, 1), speaker="Jane Doe",
    )
    return ClaimMatch.objects.create(claim=claim, factcheck=earlier, score=0.873, rank=1)


def decide(client: Client, match: ClaimMatch, decision: str, version: int | None = None) -> Any:
    return client.post(reverse("factchecks:match_decide", args=[match.pk]), {"decision": decision, "version": match.version if version is None else version})


def match_events(claim: Claim) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(object_type="claim", object_id=claim.pk, verb__startswith="claim_match.").order_by("id"))


def test_claim_page_lists_the_matches_with_their_links(claim: Claim, match: ClaimMatch, reviewer) -> None:  # type: ignore[no-untyped-def]
    other = FactCheck.objects.create(claim="A Snopes claim", publisher="Snopes", external_id="vclaim-sno-x")
    ClaimMatch.objects.create(claim=claim, factcheck=other, score=0.41, rank=2, status=ClaimMatch.Status.REJECTED)
    page = logged_in(reviewer).get(reverse("claims:detail", args=[claim.pk])).content.decode()
    section = page[page.index('id="matches"') : page.index("<h2>Appearances")]
    assert "Checked before? (2)" in section
    assert 'href="https://www.politifact.com/factchecks/2024/jun/01/ice/"' in section and "PolitiFact" in section
    assert "mostly-true" in section and "(4/5)" in section and "2024-06-01" in section and "0.873" in section
    assert section.index("PolitiFact") < section.index("Snopes")  # rejected ones last
    assert reverse("factchecks:match_decide", args=[match.pk]) in section


def test_a_reviewer_confirms_then_changes_their_mind(claim: Claim, match: ClaimMatch, reviewer) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    response = decide(client, match, "confirmed")
    assert response.status_code == 302 and response["Location"] == reverse("claims:detail", args=[claim.pk]) + "#matches"
    match.refresh_from_db()
    assert (match.status, match.decided_by, match.version) == ("confirmed", reviewer, 2) and match.decided_at is not None
    claim.refresh_from_db()
    assert claim.cluster.version == 1  # a decision on a match is not a change to the claim's own fields
    [event] = match_events(claim)
    assert (event.verb, event.actor, event.before, event.after) == (
        "claim_match.confirm", reviewer,
        {"match": match.pk, "factcheck": match.factcheck_id, "match_status": "suggested", "match_version": 1},
        {"match": match.pk, "factcheck": match.factcheck_id, "match_status": "confirmed", "match_version": 2},
    )
    assert decide(client, match, "confirmed").status_code == 302  # the same decision again: no change, no audit row
    assert len(match_events(claim)) == 1

    assert decide(client, match, "rejected").status_code == 302
    match.refresh_from_db()
    assert (match.status, match.version) == ("rejected", 3)
    assert [event.verb for event in match_events(claim)] == ["claim_match.confirm", "claim_match.reject"]


def test_a_decision_on_a_stale_version_is_refused(claim: Claim, match: ClaimMatch, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    assert decide(logged_in(editor), match, "rejected").status_code == 302
    response = decide(logged_in(reviewer), match, "confirmed", version=1)
    assert response.status_code == 409 and "Someone else decided on this match" in response.content.decode()
    match.refresh_from_db()
    assert (match.status, match.decided_by) == ("rejected", editor)


def test_refusals_wrong_method_outsider_anonymous_and_bad_input(claim: Claim, match: ClaimMatch, reviewer, outsider) -> None:  # type: ignore[no-untyped-def]
    url = reverse("factchecks:match_decide", args=[match.pk])
    assert logged_in(reviewer).get(url).status_code == 405
    assert logged_in(outsider).post(url, {"decision": "confirmed"}).status_code == 404
    assert Client().post(url, {"decision": "confirmed"}).status_code == 302  # to the login page
    assert logged_in(reviewer).post(reverse("factchecks:match_decide", args=[999_999]), {"decision": "confirmed"}).status_code == 404
    response = logged_in(reviewer).post(url, {"decision": "suggested"})
    assert response.status_code == 400 and 'id="match-error"' in response.content.decode()
    assert logged_in(outsider).post(reverse("factchecks:match_verdict", args=[match.pk])).status_code == 404
    assert logged_in(reviewer).get(reverse("factchecks:match_verdict", args=[match.pk])).status_code == 405
    match.refresh_from_db()
    assert (match.status, match.version) == ("suggested", 1) and match_events(claim) == []


def checked(page: str, name: str) -> list[str]:
    return re.findall(rf'<input type="(?:radio|checkbox)" name="{name}" value="([^"]+)"[^>]*checked', page)


def test_a_verdict_starts_from_a_confirmed_match_prefilled_then_edited(claim: Claim, match: ClaimMatch, reviewer) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    start = reverse("factchecks:match_verdict", args=[match.pk])
    refused = client.post(start)
    assert refused.status_code == 400 and "Confirm the match before starting a verdict" in refused.content.decode()
    assert not Evidence.objects.exists()

    decide(client, match, "confirmed")
    response = client.post(start)
    assert response.status_code == 302 and response["Location"] == reverse("claims:detail", args=[claim.pk]) + f"?from_match={match.pk}#verdict"
    evidence = Evidence.objects.get()
    assert (evidence.kind, evidence.url, evidence.title, evidence.added_by) == (
        "fact_check", match.factcheck.url, "PolitiFact: Did ICE detain 1,500 in May?", reviewer
    )
    client.post(start)
    assert Evidence.objects.count() == 1  # started twice: one evidence entry

    page = client.get(response["Location"]).content.decode()
    form = page[page.index('id="verdict-form"') :]
    assert checked(form, "rating") == ["mostly_true"] and checked(form, "evidence") == [str(evidence.pk)]
    assert "PolitiFact checked this claim on 2024-06-01 and rated it “mostly-true”" in form and 'value="Checked before by PolitiFact"' in form
    assert 'id="verdict-start-from"' in page
    # Started from the library, the verdict still reviews this claim, not the library's wording.
    assert f'name="claim_reviewed" value="{SENTENCE}"' in form and match.factcheck.claim not in form.split('name="claim_reviewed"')[1][:200]

    response = client.post(reverse("claims:verdict", args=[claim.pk]), {
        "rating": "half_true", "headline": "Close, but the figure was 1,400", "explanation": "Edited after reading PolitiFact.", "evidence": [evidence.pk],
    })
    assert response.status_code == 302
    verdict = Verdict.objects.get(claim=claim)
    assert (verdict.rating, verdict.status, list(verdict.evidence.all())) == ("half_true", "draft", [evidence])


def test_a_page_asked_to_prefill_from_an_unconfirmed_or_foreign_match_is_unchanged(claim: Claim, match: ClaimMatch, reviewer) -> None:  # type: ignore[no-untyped-def]
    page = logged_in(reviewer).get(reverse("claims:detail", args=[claim.pk]) + f"?from_match={match.pk}").content.decode()
    assert checked(page, "rating") == [] and 'id="verdict-start-from"' not in page


def jsonld(client: Client, claim: Claim) -> dict[str, Any]:
    response = client.get(reverse("publishing:jsonld", args=[claim.pk]))
    assert response.status_code == 200
    return response.json()


def test_claimreview_of_a_verdict_from_a_match_cites_the_earlier_factcheck(claim: Claim, match: ClaimMatch, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    decide(client, match, "confirmed")
    client.post(reverse("factchecks:match_verdict", args=[match.pk]))
    evidence = Evidence.objects.get()
    claim_services.claim_assign(claim=claim, actor=reviewer, assignee=reviewer)
    verdict = claim_services.verdict_draft(
        claim=claim, actor=reviewer, rating="mostly_true", headline="About right", explanation="As PolitiFact found.", evidence_ids=[evidence.pk]
    )
    claim_services.verdict_approve(verdict=verdict, actor=editor, expected_version=verdict.version)
    document = jsonld(client, claim)
    assert document["citation"] == [{
        "@type": "CreativeWork",
        "name": "Did ICE detain 1,500 in May?",
        "publisher": {"@type": "Organization", "name": "PolitiFact"},
        "url": "https://www.politifact.com/factchecks/2024/jun/01/ice/",
        "datePublished": "2024-06-01",
        "description": "Rated “mostly-true”: ICE detained about 1,500 people in May",
    }]
    assert document["claimReviewed"] == SENTENCE
    assert_valid_claimreview(document)


def test_claimreview_cites_nothing_without_a_confirmed_match(claim: Claim, match: ClaimMatch, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    publish(claim, author=reviewer, approver=editor)
    document = jsonld(logged_in(reviewer), claim)
    assert "citation" not in document
    assert_valid_claimreview(document)
