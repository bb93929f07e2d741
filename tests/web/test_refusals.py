"""Refusals explain themselves: 403/404/409 in the app's layout with the server's reason, the
same reason in place for htmx, one log line per expected refusal; the history in people's
words with its time zone; addresses in notes as links."""

from __future__ import annotations

import logging

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from factcheck.claims.models import Claim
from factcheck.claims.workflow import services
from tests.conftest import PERSONA_PASSWORD
from tests.workflow.factories import make_claim

pytestmark = pytest.mark.django_db

S = Claim.Status
HTMX = {"HTTP_HX_REQUEST": "true"}
SECOND_PERSON = "A second person must approve or return a verdict; you wrote some of this one."


def logged_in(user, **kwargs) -> Client:  # type: ignore[no-untyped-def]
    client = Client(**kwargs)
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def in_layout(body: str) -> bool:
    """The app's page frame: its navigation and the signed-in user's log-out button."""
    return '<header class="top">' in body and ">Claims</a>" in body and "Log out" in body


@pytest.fixture
def own_draft(editor):  # type: ignore[no-untyped-def]
    claim = make_claim(status=S.IN_RESEARCH, assignee=editor)
    return services.verdict_draft(claim=claim, actor=editor, rating="true", headline="Right", explanation="Yes.")


def test_403_is_a_page_in_the_layout_with_the_servers_reason(editor, own_draft) -> None:  # type: ignore[no-untyped-def]
    claim_url = reverse("claims:detail", args=[own_draft.claim_id])
    response = logged_in(editor).post(
        reverse("claims:verdict-review", args=[own_draft.pk]), {"decision": "approve", "version": own_draft.version},
        HTTP_REFERER=f"http://testserver{claim_url}",
    )
    body = response.content.decode()
    assert response.status_code == 403
    assert in_layout(body) and 'id="refusal-page"' in body
    assert SECOND_PERSON in body
    assert f'href="http://testserver{claim_url}"' in body  # back to the claim it came from
    own_draft.refresh_from_db()
    assert own_draft.status == "draft"


def test_a_role_refusal_names_the_role(outsider) -> None:  # type: ignore[no-untyped-def]
    response = logged_in(outsider).get(reverse("claims:list"))
    body = response.content.decode()
    assert response.status_code == 403
    assert '<header class="top">' in body and "This needs the reviewer role." in body


def test_404_pages_in_the_layout(reviewer) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    missing = client.get(reverse("claims:detail", args=[999_999]))
    assert missing.status_code == 404
    assert in_layout(missing.content.decode()) and "No such claim." in missing.content.decode()
    # No URL matched: Django's resolver carries a dict, not a sentence; the page says what it means.
    nowhere = client.get("/no-such-page/")
    assert nowhere.status_code == 404
    assert in_layout(nowhere.content.decode()) and "There is nothing at this address" in nowhere.content.decode()
    assert "tried" not in nowhere.content.decode()


def test_htmx_refusals_answer_the_message_aimed_at_the_layouts_region(editor, reviewer, own_draft) -> None:  # type: ignore[no-untyped-def]
    response = logged_in(editor).post(
        reverse("claims:verdict-review", args=[own_draft.pk]), {"decision": "approve", "version": own_draft.version}, **HTMX
    )
    body = response.content.decode()
    assert response.status_code == 403
    assert (response["HX-Retarget"], response["HX-Reswap"]) == ("#refusal", "innerHTML")
    assert SECOND_PERSON in body and "<header" not in body
    missing = logged_in(reviewer).post(reverse("claims:row_action", args=[999_999]), {"action": "check", "version": 1}, **HTMX)
    assert missing.status_code == 404 and missing["HX-Retarget"] == "#refusal" and "No such claim." in missing.content.decode()
    # The region it is aimed at is on every page, and the htmx configuration swaps these codes.
    page = logged_in(reviewer).get(reverse("claims:list")).content.decode()
    assert 'id="refusal"' in page and '{"code":"403|404","swap":true,"error":false}' in page


def test_409_is_the_claim_page_in_the_layout_with_who_changed_what(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    services.claim_dismiss(claim=claim, actor=editor, reason="Satire site")
    response = logged_in(reviewer).post(reverse("claims:triage", args=[claim.pk]), {"action": "check", "version": 1})
    body = response.content.decode()
    assert response.status_code == 409
    assert in_layout(body) and "Someone else changed this claim" in body
    assert "eddie-editor</strong> dismissed the claim (New → Dismissed)" in body and "UTC" in body


def test_a_stale_form_is_refused_in_the_layout_with_what_to_do(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    client = logged_in(reviewer, enforce_csrf_checks=True)
    response = client.post(reverse("claims:triage", args=[claim.pk]), {"action": "check", "version": 1})
    body = response.content.decode()
    assert response.status_code == 403
    assert in_layout(body) and "Reload the page and send it again." in body
    claim.refresh_from_db()
    assert claim.cluster.status == S.NEW


def test_an_expected_refusal_logs_one_line_without_a_traceback(editor, own_draft, caplog) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = logged_in(editor).post(
            reverse("claims:verdict-review", args=[own_draft.pk]), {"decision": "approve", "version": own_draft.version}
        )
    assert response.status_code == 403
    records = [record for record in caplog.records if record.name == "django.request"]
    assert len(records) == 1
    record = records[0]
    assert record.exc_info is None and record.exc_text is None
    # As the console handler writes it (settings.LOGGING's formatter): one line, path and reason.
    line = logging.Formatter(settings.LOGGING["formatters"]["plain"]["format"]).format(record)
    assert "\n" not in line and "Traceback" not in line
    assert f"Forbidden (Permission denied): /claims/verdicts/{own_draft.pk}/review/ ({SECOND_PERSON})" in line


def test_an_unexpected_error_keeps_its_traceback() -> None:
    from factcheck.refusals import ExpectedRefusalFilter

    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        import sys

        record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Internal Server Error: %s", ("/x/",), sys.exc_info())
    assert ExpectedRefusalFilter().filter(record)
    assert record.exc_info is not None and record.getMessage() == "Internal Server Error: /x/"


def test_history_speaks_peoples_words_with_the_time_zone(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    services.claim_mark_check(claim=claim, actor=reviewer)
    services.claim_assign(claim=claim, actor=editor, assignee=reviewer)
    services.claim_tag(claim=claim, actor=reviewer, add=["health", "nhs"])
    services.claim_start_research(claim=claim, actor=reviewer)
    verdict = services.verdict_draft(claim=claim, actor=reviewer, rating="false", headline="Wrong", explanation="No.")
    services.verdict_approve(verdict=verdict, actor=editor, expected_version=verdict.version)
    body = logged_in(reviewer).get(reverse("claims:detail", args=[claim.pk])).content.decode()
    history = body[body.index('id="history"'):]
    for words in (
        "rita-reviewer</strong> marked for checking (New → Check it)",
        "eddie-editor</strong> assigned the claim to rita-reviewer",
        "rita-reviewer</strong> set the tags to health, nhs",
        "rita-reviewer</strong> started research (Check it → In research)",
        "rita-reviewer</strong> drafted the verdict (In research → Verdict drafted)",
        "eddie-editor</strong> approved the verdict (Verdict drafted → Approved)",
    ):
        assert words in history, words
    assert "claim.check" not in history and "verdict.approve" not in history
    assert history.count(" UTC</time>") == 6


def test_addresses_in_notes_become_safe_links(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    services.annotation_add(
        claim=claim, actor=reviewer,
        body='ONS table: https://www.ons.gov.uk/t3?x=1&y=2. Not javascript:alert(1), not <a href="https://evil.example">this</a>.',
    )
    body = logged_in(reviewer).get(reverse("claims:detail", args=[claim.pk])).content.decode()
    notes = body[body.index('id="notes"'):body.index('id="history"')]
    assert (
        '<a href="https://www.ons.gov.uk/t3?x=1&amp;y=2" rel="noopener noreferrer nofollow">https://www.ons.gov.uk/t3?x=1&amp;y=2</a>.' in notes
    )
    assert 'href="javascript' not in notes
    # Raw HTML stays text; only the address inside it is linked, never the markup around it.
    assert "&lt;a href=" in notes and "&gt;this&lt;/a&gt;" in notes and ">this</a>" not in notes


def test_every_audit_verb_the_code_records_has_words() -> None:
    """A new verb must be given words in factcheck/audit/wording.py, or the history shows its key."""
    import re
    from pathlib import Path

    from factcheck.audit.wording import VERB_WORDS

    recorded = set()
    for source in Path(settings.BASE_DIR, "factcheck").rglob("*.py"):
        for line in source.read_text().splitlines():
            # The value given to verb=, up to the next keyword argument: "a.b" or "a.b" if ... else "a.c".
            for value in re.findall(r"\bverb\s*=(?!=)\s*(.+?)(?:,\s*\w+\s*=|\)?\s*$)", line):
                recorded.update(re.findall(r'"([a-z_]+(?:\.[a-z_]+)?)"', value))
    assert {"claim.check", "verdict.approve", "ranking_weights_set"} <= recorded  # the scan finds them
    assert recorded - set(VERB_WORDS) == set()
