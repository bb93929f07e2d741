"""No lost re-match: the broker down when an import or an approval asks for the queue to be
matched against new fact-checks. The entries stay pending (a marker written with them), the
reaper sends the matching once the broker answers, and the claim becomes "checked before".
The real matching engine throughout; the broker is pointed at a closed port, never stopped.
(With a real worker and its beat: tests/e2e/test_match_chaos.py.)
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from factcheck.claims.models import Claim
from factcheck.factchecks import tasks
from factcheck.factchecks.models import ClaimMatch, FactCheck, FactCheckImport
from factcheck.factchecks.selectors import claims_checked_before
from factcheck.factchecks.services import claim_match_decide, factchecks_import_file
from factcheck.runs.services import runs_reap
from tests.conftest import PERSONA_PASSWORD
from tests.pipeline.test_matching import LIBRARY, seed_sentences
from tests.reports.helpers import claim_in_article, publish
from tests.web.test_run_faults import broker_down

pytestmark = [pytest.mark.chaos, pytest.mark.django_db]


def snopes_library(path: Path) -> Path:
    """The small library of tests/pipeline/test_matching.py in the Snopes layout (one of the
    three an import reads), the paraphrase of the seeds' "nearly 1,500" claim among them."""
    rows = [
        {"vclaim_id": entry["id"], "vclaim": entry["claim"], "title": entry.get("title", ""), "subtitle": entry.get("summary", ""), "date": "3 June 2025"}
        for entry in LIBRARY
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def nearly_1500() -> str:
    return next(sentence for sentence in seed_sentences() if "nearly 1,500" in sentence)


def pending_ids() -> list[int]:
    return list(FactCheck.objects.filter(match_pending_since__isnull=False).order_by("id").values_list("id", flat=True))


def test_an_import_while_the_broker_is_down_is_matched_once_the_reaper_sends_it(  # type: ignore[no-untyped-def]
    tmp_path: Path, reviewer, django_capture_on_commit_callbacks, caplog
) -> None:
    claim = claim_in_article(sentence=nearly_1500(), status=Claim.Status.NEW)
    with broker_down():
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            batch = factchecks_import_file(path=snopes_library(tmp_path / "vclaims.jsonl"), publisher="Snopes")
        assert batch.status == FactCheckImport.Status.DONE and batch.rows_created == len(LIBRARY) and len(callbacks) == 1
        assert "Could not send factcheck.factchecks.tasks.factchecks_match_new" in caplog.text
        # Nothing matched, nothing sent, but nothing forgotten either.
        assert not ClaimMatch.objects.exists() and claims_checked_before([claim.pk]) == {}
        library = pending_ids()
        assert len(library) == len(LIBRARY) and not FactCheck.objects.filter(match_sent_at__isnull=False).exists()
        assert runs_reap().factcheck_matches_sent == []  # still down: the next sweep tries again
    sent = runs_reap().factcheck_matches_sent
    assert sent == library and FactCheck.objects.filter(match_sent_at__isnull=False).count() == len(LIBRARY)
    assert runs_reap().factcheck_matches_sent == []  # sent, not yet due again

    tasks.factchecks_match_new.apply(args=(sent,))  # what the worker does with the message
    found = claims_checked_before([claim.pk])
    assert found and found[claim.pk].publisher == "Snopes" and found[claim.pk].date is not None
    best = ClaimMatch.objects.get(claim=claim, rank=1)
    assert best.factcheck.external_id == "ice-1500"
    assert pending_ids() == [] and not FactCheck.objects.filter(match_sent_at__isnull=False).exists()
    assert runs_reap().factcheck_matches_sent == []

    # A second delivery of the same message stores the same matches, and a reviewer's
    # decision made in between stands.
    stored = sorted(ClaimMatch.objects.values_list("claim_id", "factcheck_id", "score", "rank"))
    assert [row[3] for row in sorted(stored, key=lambda row: row[3])] == list(range(1, len(stored) + 1)) and len(stored) <= 5
    claim_match_decide(match=best, actor=reviewer, decision="rejected")
    tasks.factchecks_match_new.apply(args=(sent,))
    assert sorted(ClaimMatch.objects.values_list("claim_id", "factcheck_id", "score", "rank")) == stored
    assert ClaimMatch.objects.get(pk=best.pk).status == ClaimMatch.Status.REJECTED


def test_an_approval_while_the_broker_is_down_makes_an_earlier_claim_checked_before(  # type: ignore[no-untyped-def]
    reviewer, editor, settings, django_capture_on_commit_callbacks
) -> None:
    settings.FACTCHECK_ORG_NAME = "Our desk"
    # The same claim in an earlier article (a looser paraphrase, "immigration agents" for ICE, is a
    # lead under the verification stage rather than a badge: docs/matching.md).
    earlier = claim_in_article(sentence=nearly_1500(), status=Claim.Status.NEW)
    checked = claim_in_article(sentence=nearly_1500())
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        verdict = publish(checked, author=reviewer, approver=editor)
    entry = FactCheck.objects.get(verdict=verdict)
    assert (entry.match_pending_since is not None, entry.match_sent_at) == (True, None)
    assert claims_checked_before([earlier.pk]) == {}

    sent = runs_reap().factcheck_matches_sent
    assert sent == [entry.pk]
    tasks.factchecks_match_new.apply(args=(sent,))
    found = claims_checked_before([earlier.pk, checked.pk])
    # The desk's own verdict is never a match of the claim it judges.
    assert list(found) == [earlier.pk] and (found[earlier.pk].publisher, found[earlier.pk].rating) == ("Our desk", "Mostly false")


def test_the_reaper_leaves_a_running_import_alone_and_resends_a_lost_message(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    claim_in_article(sentence=nearly_1500())
    running = FactCheckImport.objects.create(source="big.jsonl", status=FactCheckImport.Status.IMPORTING)
    mid_import = FactCheck.objects.create(claim="ICE detained 1,500.", publisher="Snopes", external_id="a", import_batch=running)
    lost = FactCheck.objects.create(claim="Wind turbines kill birds.", publisher="Snopes", external_id="b")
    # Sent a while ago and still pending: the worker never got to it.
    FactCheck.objects.filter(pk=lost.pk).update(match_sent_at=timezone.now() - timedelta(seconds=settings.FACTCHECK_RUN_RESEND_SECONDS + 1))
    assert runs_reap().factcheck_matches_sent == [lost.pk]
    assert runs_reap().factcheck_matches_sent == []  # just sent again
    FactCheckImport.objects.filter(pk=running.pk).update(status=FactCheckImport.Status.FAILED)
    assert runs_reap().factcheck_matches_sent == [mid_import.pk]  # the import will not send it now


def test_an_admin_edit_of_what_the_matcher_reads_makes_the_entry_pending_again(admin_user) -> None:  # type: ignore[no-untyped-def]
    entry = FactCheck.objects.create(claim="ICE detained 1,500.", publisher="Snopes", external_id="a", rating_text="True")
    FactCheck.objects.filter(pk=entry.pk).update(match_pending_since=None)
    client = Client()
    assert client.login(username=admin_user.username, password=PERSONA_PASSWORD)
    url = reverse("admin:factchecks_factcheck_change", args=[entry.pk])
    form = {
        "claim": entry.claim, "title": "", "summary": "", "rating_text": "True", "rating_value": "", "publisher": "Snopes", "url": "",
        "published_on": "", "speaker": "Jane Doe", "metadata": "{}",
    }
    assert client.post(url, form).status_code == 302  # the speaker: not read by the matcher
    entry.refresh_from_db()
    assert (entry.speaker, entry.match_pending_since) == ("Jane Doe", None)
    assert client.post(url, {**form, "claim": "ICE detained nearly 1,500 people in May."}).status_code == 302
    entry.refresh_from_db()
    assert entry.match_pending_since is not None and runs_reap().factcheck_matches_sent == [entry.pk]
