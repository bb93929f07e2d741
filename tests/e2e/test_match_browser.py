"""Checked before? in a real browser: a reviewer confirms one match and rejects others, sees
both on the claim page, in its history and in the queue, then starts a verdict from the
confirmed match. The matches come from the real engine (factchecks_match_new), the library
from tests/pipeline/test_matching.py's small one, with the paraphrase of the seeds' claim.

Persona: reviewer (decides on matches, drafts verdicts)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, Evidence, Verdict
from factcheck.factchecks import services
from factcheck.factchecks.models import ClaimMatch, FactCheck
from tests.conftest import PERSONA_PASSWORD
from tests.e2e.test_browser import ARTIFACTS, page  # noqa: F401 - the Playwright page fixture
from tests.pipeline.test_matching import LIBRARY, seed_sentences
from tests.reports.helpers import claim_in_article

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIND = "Wind turbines kill more birds than cats, campaigners claim."


def library() -> dict[str, FactCheck]:
    entries = {}
    for entry in LIBRARY:
        entries[entry["id"]] = FactCheck.objects.create(
            claim=entry["claim"], title=entry.get("title", ""), summary=entry.get("summary", ""), publisher="Snopes",
            external_id=entry["id"], rating_text=entry.get("rating", ""), url=f"https://www.snopes.com/fact-check/{entry['id']}/",
            published_on=date(2025, 6, 3),
        )
    return entries


def log_in(page, live_server, user) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    page.goto(f"{live_server.url}/claims/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PERSONA_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#claim-list")


def click(page, selector: str) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    with page.expect_navigation():
        page.click(selector)


def test_reviewer_confirms_and_rejects_matches_then_starts_a_verdict_from_one(page, live_server, reviewer) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    sentence = next(s for s in seed_sentences() if "nearly 1,500" in s)
    published = datetime(2025, 6, 4, 12, tzinfo=UTC)
    claim = claim_in_article(sentence=sentence, status=Claim.Status.IN_RESEARCH, assignee=reviewer, published_at=published)
    wind = claim_in_article(sentence=WIND, status=Claim.Status.NEW, priority=40.0)
    entries = library()
    assert services.factchecks_match_new(factcheck_ids=[entry.pk for entry in entries.values()]) > 0
    best = ClaimMatch.objects.get(claim=claim, rank=1)
    assert best.factcheck == entries["ice-1500"]
    other = ClaimMatch.objects.get(claim=claim, rank=2)
    wind_match = ClaimMatch.objects.get(claim=wind, rank=1)
    assert wind_match.factcheck == entries["wind"]
    # Only the wind claim's best is left to reject: then nothing in the queue offers it.
    ClaimMatch.objects.filter(claim=wind).exclude(pk=wind_match.pk).delete()

    log_in(page, live_server, reviewer)
    assert "Checked before: Snopes, True, 3 Jun 2025" in page.inner_text(f"#claim-{claim.pk} .checked-before")
    assert page.is_visible(f"#claim-{wind.pk} .checked-before")

    page.goto(f"{live_server.url}/claims/{claim.pk}/")
    matches = page.inner_text("#matches")
    assert "Did ICE Detain About 1,500 People in Massachusetts?" in matches and "suggested (#1)" in matches
    assert page.get_attribute(f"#match-{best.pk} a", "href") == entries["ice-1500"].url

    click(page, f"#match-{best.pk} button[value=confirmed]")
    confirmed_row = page.locator(f"#match-{best.pk}")
    assert "match-confirmed" in (confirmed_row.get_attribute("class") or "")
    assert f"Confirmed by {reviewer.username}" in confirmed_row.inner_text()
    assert confirmed_row.locator("button[value=confirmed]").count() == 0  # already confirmed: not offered again

    click(page, f"#match-{other.pk} button[value=rejected]")
    rejected_row = page.locator(f"#match-{other.pk}")
    assert "match-rejected" in (rejected_row.get_attribute("class") or "")
    assert "Rejected" in rejected_row.inner_text() and rejected_row.locator("button[value=rejected]").count() == 0
    # Rejected matches are listed last; the confirmed one first.
    rows = page.locator("#matches tbody tr")
    assert rows.first.get_attribute("id") == f"match-{best.pk}" and rows.last.get_attribute("id") == f"match-{other.pk}"
    history = page.inner_text("#history")
    assert f"confirmed an earlier fact-check as a match (fact-check #{best.factcheck_id})" in history
    assert f"rejected a suggested earlier fact-check (fact-check #{other.factcheck_id})" in history
    page.screenshot(path=str(ARTIFACTS / "match-confirmed-rejected.png"), full_page=True)

    # The wind claim's only match, rejected: the queue stops offering it as checked before.
    page.goto(f"{live_server.url}/claims/{wind.pk}/")
    click(page, f"#match-{wind_match.pk} button[value=rejected]")
    assert "No earlier fact-check" not in page.inner_text("#matches") and "Rejected" in page.inner_text(f"#match-{wind_match.pk}")

    page.goto(f"{live_server.url}/claims/")
    assert "Checked before (confirmed): Snopes, True, 3 Jun 2025" in page.inner_text(f"#claim-{claim.pk} .checked-before")
    assert page.locator(f"#claim-{wind.pk} .checked-before").count() == 0
    page.goto(f"{live_server.url}/claims/?checked_before=yes")
    assert page.locator(f"#claim-{claim.pk}").count() == 1 and page.locator(f"#claim-{wind.pk}").count() == 0
    page.screenshot(path=str(ARTIFACTS / "match-queue-checked-before.png"), full_page=True)

    # A verdict from the confirmed match: rating, explanation and evidence filled in.
    page.goto(f"{live_server.url}/claims/{claim.pk}/")
    click(page, f"#match-{best.pk} form[action$='/verdict/'] button")
    assert f"from_match={best.pk}" in page.url
    assert "Filled in from Snopes’s fact-check (True)" in page.inner_text("#verdict-start-from")
    assert page.is_checked("input[name=rating][value=true]")
    explanation = page.input_value("#id_explanation")
    assert "Snopes checked this claim on 2025-06-03 and rated it “True”" in explanation and entries["ice-1500"].url in explanation
    assert page.input_value("#id_headline") == "Checked before by Snopes"
    cited = Evidence.objects.get(claim=claim, url=entries["ice-1500"].url)
    assert cited.kind == Evidence.Kind.FACT_CHECK and page.is_checked(f"input[name=evidence][value='{cited.pk}']")
    page.screenshot(path=str(ARTIFACTS / "match-verdict-prefilled.png"), full_page=True)

    # Edited, then sent: the draft keeps the earlier fact-check as its evidence.
    page.fill("#id_headline", "True: ICE reported about 1,500 arrests")
    click(page, "#verdict-form button[type=submit]")
    assert page.inner_text("#claim-status") == "Verdict drafted"
    verdict = Verdict.objects.get(claim=claim)
    assert (verdict.rating, verdict.headline) == ("true", "True: ICE reported about 1,500 arrests")
    assert list(verdict.evidence.values_list("url", flat=True)) == [entries["ice-1500"].url]
    verbs = list(AuditEvent.objects.filter(object_type="claim", object_id=claim.pk).order_by("id").values_list("verb", flat=True))
    assert verbs[:2] == ["claim_match.confirm", "claim_match.reject"] and "verdict.draft" in verbs
    assert ClaimMatch.objects.get(pk=best.pk).status == "confirmed" and ClaimMatch.objects.get(pk=other.pk).status == "rejected"
