"""No lost re-match, with a real Celery worker and its beat: the broker unreachable from the
process that imports fact-checks or approves a verdict, so the message that asks for the queue
to be matched against them is never sent. The worker's reaper finds the entries still pending
and sends it; the worker matches; the queued claim becomes "checked before".

The worker runs the reaper every 2 s (tests/e2e/test_chaos.py's fault timings). Only this
process's route to the broker is cut (a closed port); the shared Redis is left alone.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from factcheck.claims.models import Claim
from factcheck.factchecks.models import ClaimMatch, FactCheck, FactCheckImport
from factcheck.factchecks.selectors import claims_checked_before
from factcheck.factchecks.services import factchecks_import_file
from tests.conftest import Worker
from tests.e2e.test_chaos import chaos_worker, wait_until  # noqa: F401 - the worker fixture
from tests.factchecks.test_match_resend import nearly_1500, pending_ids, snopes_library
from tests.reports.helpers import claim_in_article, publish
from tests.web.test_run_faults import broker_down

pytestmark = [pytest.mark.e2e, pytest.mark.chaos, pytest.mark.django_db(transaction=True)]


def test_matching_asked_for_while_the_broker_was_down_is_done_after_the_reaper_sends_it(  # type: ignore[no-untyped-def]
    chaos_worker: Worker, tmp_path: Path, reviewer, editor  # noqa: F811
) -> None:
    claim = claim_in_article(sentence=nearly_1500(), status=Claim.Status.NEW)
    with broker_down():
        batch = factchecks_import_file(path=snopes_library(tmp_path / "vclaims.jsonl"), publisher="Snopes")
        fault_at = time.monotonic()
    pending_before = pending_ids()
    assert batch.status == FactCheckImport.Status.DONE and len(pending_before) == batch.rows_created > 0
    found = wait_until(lambda: claims_checked_before([claim.pk]), timeout=120, what="the reaper's re-match of the import", interval=0.25)
    print(f"\nimport with the broker down: claim checked before {time.monotonic() - fault_at:.1f}s later")
    assert found[claim.pk].publisher == "Snopes"
    wait_until(lambda: not pending_ids(), timeout=30, what="the pending marks to clear")

    # An approval while the broker is down: an earlier queued claim, checked by the desk now.
    earlier = claim_in_article(sentence="Wind turbines kill more birds than cats, campaigners say.", status=Claim.Status.NEW)
    checked = claim_in_article(sentence="Wind turbines kill more birds than cats do.")
    with broker_down():
        # A verdict on this claim (the helper's default headline is about ICE arrests: under the
        # verification stage an entry whose headline is about another claim is a weak match).
        verdict = publish(
            checked, author=reviewer, approver=editor, headline="Cats kill far more birds than wind turbines",
            explanation="Wind turbines kill hundreds of thousands of birds a year; cats kill billions.",
        )
        fault_at = time.monotonic()
    entry = FactCheck.objects.get(verdict=verdict)
    # Its state is not asserted here: the worker's reaper (every 2 s, with its own route to the
    # broker) may send it at once, and did, 62 ms after the approval, in one run. Who sent it
    # is the worker's log, read at the end.
    # The library already holds Snopes' check of the same claim: the desk's entry joins its matches.
    matched = ClaimMatch.objects.filter(claim=earlier, factcheck=entry)
    wait_until(matched.exists, timeout=120, what="the reaper's re-match of the approval", interval=0.25)
    print(f"approval with the broker down: earlier claim matched to it {time.monotonic() - fault_at:.1f}s later")
    assert earlier.pk in claims_checked_before([earlier.pk])
    assert not ClaimMatch.objects.filter(claim=checked).exists()  # published: not in the queue any more
    wait_until(lambda: not pending_ids(), timeout=30, what="the desk entry's pending mark to clear")
    # Both were sent by the worker's reaper, never by the process that could not reach the broker.
    log = chaos_worker.log_path.read_text()
    assert f"factcheck_matches_sent={pending_before}" in log and f"factcheck_matches_sent=[{entry.pk}]" in log
