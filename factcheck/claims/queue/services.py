"""The queue's writes: saved views and bulk actions (which apply the workflow's services claim by claim)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.db.models import F
from django.utils import timezone

from factcheck.accounts.roles import Role, has_role
from factcheck.claims.models import BulkAction, Claim, SavedView
from factcheck.claims.workflow.errors import WorkflowError
from factcheck.claims.workflow.services import claim_assign, claim_dismiss, claim_set_status, claim_tag
from factcheck.queueing import queued_row_send, queued_rows_resend

# --- The queue: saved views and bulk actions ---------------------------------------------


@transaction.atomic
def saved_view_create(*, user: User, name: str, query: str) -> SavedView:
    """Save (or overwrite) the user's view `name` with the queue's canonical query string."""
    if not has_role(user, Role.REVIEWER):
        raise PermissionDenied("This needs the reviewer role.")
    name = name.strip()
    view = SavedView.objects.filter(user=user, name=name).first() or SavedView(user=user, name=name)
    view.query = query
    view.full_clean()
    view.save()
    return view


@transaction.atomic
def saved_view_delete(*, user: User, view: SavedView) -> None:
    if view.user_id != user.pk:
        raise PermissionDenied("Only its owner deletes a saved view.")
    view.delete()


class BulkKind(models.TextChoices):
    ASSIGN = "assign", "Assign"
    DISMISS = "dismiss", "Dismiss"
    STATUS = "status", "Set status"
    TAG = "tag", "Tag"


@dataclass(frozen=True)
class BulkOutcome:
    done: int
    skipped: int


def bulk_check_allowed(*, actor: User, action: str, params: dict[str, Any]) -> None:
    """The checks made before a bulk action is counted, run or queued (each claim's service
    checks again): reviewers act on claims; only editors assign to someone else."""
    if not has_role(actor, Role.REVIEWER):
        raise PermissionDenied("This needs the reviewer role.")
    if action not in BulkKind.values:
        raise WorkflowError(f"Unknown bulk action {action!r}.")
    if action == BulkKind.ASSIGN and params.get("assignee_id") not in (None, actor.pk) and not has_role(actor, Role.EDITOR):
        raise PermissionDenied("Only editors assign claims to others.")


def _bulk_apply_one(*, claim: Claim, actor: User, action: str, params: dict[str, Any], assignee: User | None) -> None:
    if action == BulkKind.ASSIGN:
        # Editors reassign, so for them a claim someone holds is taken over; a reviewer's
        # bulk "assign to me" leaves claims others hold alone (skipped).
        claim_assign(claim=claim, actor=actor, assignee=assignee, force=has_role(actor, Role.EDITOR))
    elif action == BulkKind.DISMISS:
        claim_dismiss(claim=claim, actor=actor, reason=params["reason"])
    elif action == BulkKind.STATUS:
        claim_set_status(claim=claim, actor=actor, status=params["status"], reason=params.get("reason", ""))
    elif action == BulkKind.TAG:
        claim_tag(claim=claim, actor=actor, add=params.get("add", []), remove=params.get("remove", []))


def bulk_apply(*, actor: User, action: str, params: dict[str, Any], claim_ids: list[int]) -> BulkOutcome:
    """Apply an action claim by claim through the workflow services, so each change has its
    guard and its audit row. A claim the action may not touch (a transition not allowed, a
    claim someone else holds, too many tags, one deleted meanwhile) is skipped, not a failure."""
    bulk_check_allowed(actor=actor, action=action, params=params)
    assignee = None
    if action == BulkKind.ASSIGN and params.get("assignee_id") is not None:
        assignee = get_user_model().objects.get(pk=params["assignee_id"])
    done = skipped = 0
    claims = Claim.objects.filter(pk__in=claim_ids).order_by("pk")
    for claim in claims:
        try:
            _bulk_apply_one(claim=claim, actor=actor, action=action, params=params, assignee=assignee)
        except (WorkflowError, PermissionDenied, ValidationError):
            skipped += 1
        else:
            done += 1
    skipped += len(set(claim_ids)) - done - skipped
    return BulkOutcome(done=done, skipped=skipped)


@transaction.atomic
def bulk_action_create(*, user: User, action: str, params: dict[str, Any], claim_ids: list[int]) -> BulkAction:
    """Record a bulk action over a fixed list of claims and queue it once this commits."""
    from factcheck.claims.tasks import bulk_action_run

    bulk_check_allowed(actor=user, action=action, params=params)
    bulk = BulkAction(user=user, action=action, params=params, claim_ids=sorted(set(claim_ids)), total=len(set(claim_ids)))
    bulk.full_clean()
    bulk.save()
    bulk_id = bulk.pk
    queued = BulkAction.objects.filter(status=BulkAction.Status.QUEUED)
    transaction.on_commit(
        lambda: queued_row_send(bulk_action_run, queued=queued, pk=bulk_id, queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=BULK_QUEUE_UNAVAILABLE)
    )
    return bulk


BULK_QUEUE_UNAVAILABLE = "The task queue is unavailable: this action starts when it is back."


def bulk_actions_resend() -> list[int]:
    """Send the queued bulk actions whose message could not be sent (the reaper calls this)."""
    from factcheck.claims.tasks import bulk_action_run

    queued = BulkAction.objects.filter(status=BulkAction.Status.QUEUED)
    return queued_rows_resend(bulk_action_run, queued=queued, queue=settings.CELERY_TASK_DEFAULT_QUEUE, unavailable=BULK_QUEUE_UNAVAILABLE)


def bulk_action_process(*, bulk_action_id: int) -> BulkAction | None:
    """Run a queued bulk action; None when it is gone or another delivery already took it.

    Each chunk's claim changes and the progress counters commit together, so the counters
    always say how far it got.
    """
    if BulkAction.objects.filter(pk=bulk_action_id, status=BulkAction.Status.QUEUED).update(status=BulkAction.Status.RUNNING) != 1:
        return None
    bulk = BulkAction.objects.select_related("user").get(pk=bulk_action_id)
    try:
        if bulk.user is None:
            raise WorkflowError("The user who started it no longer exists.")
        chunk_size = settings.FACTCHECK_BULK_CHUNK
        for start in range(0, len(bulk.claim_ids), chunk_size):
            with transaction.atomic():
                outcome = bulk_apply(actor=bulk.user, action=bulk.action, params=bulk.params, claim_ids=bulk.claim_ids[start : start + chunk_size])
                BulkAction.objects.filter(pk=bulk.pk).update(done=F("done") + outcome.done, skipped=F("skipped") + outcome.skipped)
    except Exception as exc:
        BulkAction.objects.filter(pk=bulk.pk).update(status=BulkAction.Status.FAILED, error=str(exc)[:2000], finished_at=timezone.now())
        raise
    BulkAction.objects.filter(pk=bulk.pk).update(status=BulkAction.Status.DONE, finished_at=timezone.now())
    bulk.refresh_from_db()
    return bulk
