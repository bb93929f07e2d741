"""The desk's own published verdicts as library entries.

Called by claims.workflow.services.verdict_approve inside its transaction, so a verdict and its
library entry are published together. Kept apart from services.py, which builds on the
claims services: this module needs only the models, so the claims services can import it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from factcheck.claims.models import Verdict
from factcheck.factchecks.models import FactCheck
from factcheck.publishing.selectors import organisation_current


def desk_external_id(claim_id: int) -> str:
    return f"claim:{claim_id}"


def _public_url(claim_id: int, base: str) -> str:
    return base.rstrip("/") + reverse("publishing:page", args=[claim_id]) if base else ""


def factcheck_record_verdict(*, verdict: Verdict) -> FactCheck:
    """Add (or bring up to date) the library entry for an approved verdict: one entry per
    claim, pointing at its newest approved revision. Idempotent: the same verdict again
    changes nothing. New or changed entries are matched against the queue once this commits,
    and stay pending (match_pending_since) until they are."""
    if verdict.status != Verdict.Status.APPROVED:
        raise ValueError("Only an approved verdict enters the library.")
    claim = verdict.claim
    organisation = organisation_current()
    values = {
        "claim": claim.sentence,
        "title": verdict.headline,
        "summary": verdict.explanation[:5000],
        "rating_text": organisation.rating_label(verdict.rating),
        "rating_value": organisation.rating_value(verdict.rating),
        "url": _public_url(claim.pk, organisation.public_base_url),
        "published_on": verdict.approved_at.date() if verdict.approved_at else None,
        "speaker": claim.speaker,
        "source": FactCheck.Source.DESK,
        "verdict": verdict,
        "publisher": organisation.publisher,
    }
    # Found by its source, not its publisher: the organisation may have been renamed since
    # (a demo named for real), and the claim's entry is still this one.
    entry = FactCheck.objects.select_for_update().filter(source=FactCheck.Source.DESK, external_id=desk_external_id(claim.pk)).first()
    if entry is None:
        entry = FactCheck(external_id=desk_external_id(claim.pk), **values)
    elif all(getattr(entry, name) == value for name, value in values.items()):
        return entry
    else:
        for name, value in values.items():
            setattr(entry, name, value)
    # Pending in the same transaction as the change: if the message below is lost, the
    # reaper sends it again (factchecks_match_resend).
    entry.match_pending_since, entry.match_sent_at = timezone.now(), None
    entry.full_clean(exclude=["search", "verdict"], validate_constraints=False)
    entry.save()
    entry_id = entry.pk
    transaction.on_commit(lambda: factchecks_match_send([entry_id]))
    return entry


def factchecks_match_send(factcheck_ids: list[int]) -> bool:
    """Ask a worker to match the queue against these fact-checks (after commit); records when
    it was sent. False when the broker is unreachable: the entries stay pending and unsent,
    and the reaper's next sweep sends them."""
    from factcheck.factchecks.tasks import factchecks_match_new
    from factcheck.queueing import task_send

    sent_at = timezone.now()
    if not task_send(factchecks_match_new, args=(factcheck_ids,), queue=settings.CELERY_TASK_DEFAULT_QUEUE):
        return False
    FactCheck.objects.filter(pk__in=factcheck_ids, match_pending_since__isnull=False).update(match_sent_at=sent_at)
    return True
