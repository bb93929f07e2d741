"""Issue 28 item 4: the library page for every role (search by text, publisher, rating, date;
a fact-check with the claims matched to it), and attaching from a claim a fact-check the
matcher missed (audited; a confirmation). Personas: reviewer, editor and admin read it and
attach; an outsider (no role) gets 403 on the pages and nothing changes."""

from __future__ import annotations

from datetime import date

import pytest
from django.urls import reverse

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim
from factcheck.factchecks.models import ClaimMatch, FactCheck
from tests.web.test_queue import logged_in, make_claim

pytestmark = pytest.mark.django_db


@pytest.fixture
def library() -> dict[str, FactCheck]:
    return {
        "ice": FactCheck.objects.create(
            claim="ICE detained nearly 1,500 people in Massachusetts in May.", publisher="PolitiFact", external_id="p1",
            rating_text="mostly-true", rating_value=4, published_on=date(2025, 6, 3), speaker="Todd Lyons",
        ),
        "wind": FactCheck.objects.create(
            claim="Wind turbines kill more birds than cats do.", publisher="Snopes", external_id="s1", rating_text="False", published_on=date(2019, 1, 5)
        ),
        "moon": FactCheck.objects.create(
            claim="NASA faked the 1969 Moon landing.", publisher="Snopes", external_id="s2", rating_text="False", published_on=date(2016, 7, 20)
        ),
    }


def result_ids(html: str) -> list[int]:
    import re

    return [int(pk) for pk in re.findall(r'<tr id="factcheck-(\d+)"', html)]


@pytest.mark.parametrize("persona", ["reviewer", "editor", "admin_user"])
def test_every_role_searches_the_library(request, persona: str, library: dict[str, FactCheck]) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(request.getfixturevalue(persona))
    page = client.get(reverse("factchecks:list"))
    assert page.status_code == 200 and sorted(result_ids(page.content.decode())) == sorted(fc.pk for fc in library.values())
    assert result_ids(client.get(reverse("factchecks:list"), {"q": "detained Massachusetts"}).content.decode()) == [library["ice"].pk]
    assert result_ids(client.get(reverse("factchecks:list"), {"q": "Lyons"}).content.decode()) == [library["ice"].pk]  # the speaker
    snopes = client.get(reverse("factchecks:list"), {"publisher": "Snopes"}).content.decode()
    assert sorted(result_ids(snopes)) == sorted([library["wind"].pk, library["moon"].pk])
    assert result_ids(client.get(reverse("factchecks:list"), {"rating": "mostly"}).content.decode()) == [library["ice"].pk]
    assert result_ids(client.get(reverse("factchecks:list"), {"date_from": "2017-01-01", "date_to": "2020-01-01"}).content.decode()) == [library["wind"].pk]
    bad = client.get(reverse("factchecks:list"), {"date_from": "2020-01-01", "date_to": "2017-01-01"})
    assert bad.status_code == 400 and "The start date is after the end date." in bad.content.decode()


def test_a_fact_check_page_lists_its_claims_and_the_desks_decisions(reviewer, editor, library: dict[str, FactCheck]) -> None:  # type: ignore[no-untyped-def]
    confirmed, suggested = make_claim(sentence="ICE held 1,500 in Massachusetts."), make_claim(sentence="Some 1,500 detained in May.")
    ClaimMatch.objects.create(claim=suggested, factcheck=library["ice"], score=0.61, rank=1)
    ClaimMatch.objects.create(claim=confirmed, factcheck=library["ice"], score=0.9, rank=1, status=ClaimMatch.Status.CONFIRMED, decided_by=editor)
    html = logged_in(reviewer).get(reverse("factchecks:detail", args=[library["ice"].pk])).content.decode()
    section = html[html.index('id="matched-claims"') :]
    assert "Claims matched to it (2)" in section and "mostly-true" in html and "2025-06-03" in html
    assert section.index("ICE held 1,500") < section.index("Some 1,500 detained")  # confirmed first
    assert f"by {editor.username}" in section and "0.610" in section


def test_an_outsider_gets_no_library(outsider, library: dict[str, FactCheck]) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(outsider)
    assert client.get(reverse("factchecks:list")).status_code == 403
    assert client.get(reverse("factchecks:detail", args=[library["ice"].pk])).status_code == 403
    claim = make_claim()
    response = client.post(reverse("factchecks:attach"), {"claim": claim.pk, "factcheck": library["ice"].pk})
    assert response.status_code == 403 and not ClaimMatch.objects.exists()


def test_wrong_methods(reviewer, library: dict[str, FactCheck]) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    assert client.post(reverse("factchecks:list")).status_code == 405
    assert client.post(reverse("factchecks:detail", args=[library["ice"].pk])).status_code == 405
    assert client.get(reverse("factchecks:attach")).status_code == 405


def test_a_reviewer_attaches_a_fact_check_the_matcher_missed(reviewer, library: dict[str, FactCheck]) -> None:  # type: ignore[no-untyped-def]
    claim: Claim = make_claim(sentence="Immigration agents arrested about 1,500 in Massachusetts.")
    client = logged_in(reviewer)
    # From the claim's page: a search for it, whose results each offer the attach.
    page = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert 'id="library-search-for-claim"' in page
    found = client.get(reverse("factchecks:list"), {"claim": claim.pk, "q": "Massachusetts"}).content.decode()
    assert f"Attach to claim #{claim.pk}" in found and result_ids(found) == [library["ice"].pk]

    response = client.post(reverse("factchecks:attach"), {"claim": claim.pk, "factcheck": library["ice"].pk})
    assert response.status_code == 302 and response["Location"] == reverse("claims:detail", args=[claim.pk]) + "#matches"
    match = ClaimMatch.objects.get(claim=claim)
    assert (match.factcheck, match.status, match.origin, match.decided_by, match.score) == (library["ice"], "confirmed", "manual", reviewer, 0.0)
    [event] = AuditEvent.objects.filter(object_type="claim", object_id=claim.pk, verb="claim_match.attach")
    assert event.actor == reviewer and event.before["match"] is None and event.after == {
        "match": match.pk, "factcheck": library["ice"].pk, "match_status": "confirmed", "match_version": 1,
    }
    # It counts as a confirmation: the queue says "Checked before (confirmed)".
    assert "Checked before (confirmed): PolitiFact" in client.get(reverse("claims:list")).content.decode()
    # Attaching again changes nothing; the search now says it is attached.
    client.post(reverse("factchecks:attach"), {"claim": claim.pk, "factcheck": library["ice"].pk})
    assert ClaimMatch.objects.filter(claim=claim).count() == 1 and AuditEvent.objects.filter(verb="claim_match.attach").count() == 1
    assert "attached" in client.get(reverse("factchecks:list"), {"claim": claim.pk, "q": "Massachusetts"}).content.decode()


def test_attaching_a_rejected_suggestion_confirms_it(reviewer, library: dict[str, FactCheck]) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    rejected = ClaimMatch.objects.create(claim=claim, factcheck=library["wind"], score=0.3, rank=1, status=ClaimMatch.Status.REJECTED)
    logged_in(reviewer).post(reverse("factchecks:attach"), {"claim": claim.pk, "factcheck": library["wind"].pk})
    rejected.refresh_from_db()
    assert (rejected.status, rejected.origin, rejected.version, rejected.decided_by) == ("confirmed", "engine", 2, reviewer)
    [event] = AuditEvent.objects.filter(verb="claim_match.attach")
    assert event.before["match_status"] == "rejected" and event.after["match_status"] == "confirmed"


def test_a_bad_attach_is_refused_and_changes_nothing(reviewer, library: dict[str, FactCheck]) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    claim = make_claim()
    assert client.post(reverse("factchecks:attach"), {"claim": "x", "factcheck": library["ice"].pk}).status_code == 400
    assert client.post(reverse("factchecks:attach"), {"claim": claim.pk, "factcheck": 999_999}).status_code == 404
    assert not ClaimMatch.objects.exists() and not AuditEvent.objects.filter(verb="claim_match.attach").exists()


def test_start_a_verdict_says_why_it_is_not_available(reviewer, library: dict[str, FactCheck]) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status="new")
    ClaimMatch.objects.create(claim=claim, factcheck=library["ice"], score=0.9, rank=1, status=ClaimMatch.Status.CONFIRMED)
    suggested = make_claim(status="new")
    ClaimMatch.objects.create(claim=suggested, factcheck=library["wind"], score=0.9, rank=1)
    client = logged_in(reviewer)
    page = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert "Start a verdict from this: mark the claim “check it” first." in page and 'type="submit">Start a verdict from this</button>' not in page
    assert "Start a verdict from this: confirm the match first." in client.get(reverse("claims:detail", args=[suggested.pk])).content.decode()
