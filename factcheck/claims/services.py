"""Writes for claims. Each service: keyword-only, one transaction, a guard, an audit row.

PROVISIONAL: the workflow services below stand in for the lead's (same interface) until
`git merge main` brings the real ones; the queue's services (saved views, bulk actions)
follow them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.db.models import F
from django.utils import timezone

from factcheck.accounts.roles import Role, has_role
from factcheck.audit.services import audit_record
from factcheck.claims.errors import HeldByOther, StaleVersion, TransitionNotAllowed, WorkflowError
from factcheck.claims.models import BulkAction, Claim, SavedView

S = Claim.Status


def _lock(*, claim: Claim, actor: AbstractBaseUser, expected_version: int | None) -> Claim:
    if not has_role(actor, Role.REVIEWER):
        raise PermissionDenied("This needs the reviewer role.")
    locked = Claim.objects.select_for_update(of=("self",)).select_related("assignee").get(pk=claim.pk)
    if expected_version is not None and locked.version != expected_version:
        raise StaleVersion(locked, {})
    return locked


def _save(*, claim: Claim, actor: AbstractBaseUser, verb: str, before: dict[str, Any], fields: list[str], comment: str = "") -> Claim:
    claim.version = F("version") + 1
    claim.save(update_fields=[*fields, "version", "updated_at"])
    claim.refresh_from_db()
    after = {name: getattr(claim, name if name != "assignee" else "assignee_id") for name in before}
    audit_record(actor=actor, verb=verb, object_type="claim", object_id=claim.pk, before=before, after=after, comment=comment)
    return claim


@transaction.atomic
def claim_assign(
    *, claim: Claim, actor: AbstractBaseUser, assignee: AbstractBaseUser | None, expected_version: int | None = None, force: bool = False
) -> Claim:
    locked = _lock(claim=claim, actor=actor, expected_version=expected_version)
    is_editor = has_role(actor, Role.EDITOR)
    if assignee is not None and assignee.pk != actor.pk and not is_editor:
        raise PermissionDenied("Only editors assign claims to others.")
    if locked.assignee_id not in (None, actor.pk) and not (force and is_editor):
        raise HeldByOther(locked.assignee)
    if locked.assignee_id == (assignee.pk if assignee else None):
        return locked
    before = {"assignee": locked.assignee_id}
    locked.assignee = assignee
    return _save(claim=locked, actor=actor, verb="claim.assign", before=before, fields=["assignee"])


@transaction.atomic
def claim_mark_check(*, claim: Claim, actor: AbstractBaseUser, expected_version: int | None = None) -> Claim:
    locked = _lock(claim=claim, actor=actor, expected_version=expected_version)
    if locked.status not in (S.NEW, S.DISMISSED):
        raise TransitionNotAllowed(f"A claim that is {locked.get_status_display().lower()} cannot be marked 'check it'.")
    before = {"status": locked.status, "dismiss_reason": locked.dismiss_reason}
    locked.status, locked.dismiss_reason = S.CHECK, ""
    return _save(claim=locked, actor=actor, verb="claim.check", before=before, fields=["status", "dismiss_reason"])


@transaction.atomic
def claim_dismiss(*, claim: Claim, actor: AbstractBaseUser, reason: str, expected_version: int | None = None) -> Claim:
    locked = _lock(claim=claim, actor=actor, expected_version=expected_version)
    if not reason.strip():
        raise WorkflowError("Dismissing a claim needs a reason.")
    if locked.status not in (S.NEW, S.CHECK):
        raise TransitionNotAllowed(f"A claim that is {locked.get_status_display().lower()} cannot be dismissed.")
    before = {"status": locked.status, "dismiss_reason": locked.dismiss_reason}
    locked.status, locked.dismiss_reason = S.DISMISSED, reason.strip()[:300]
    return _save(claim=locked, actor=actor, verb="claim.dismiss", before=before, fields=["status", "dismiss_reason"], comment=reason.strip())


@transaction.atomic
def claim_set_status(*, claim: Claim, actor: AbstractBaseUser, status: str, reason: str = "", expected_version: int | None = None) -> Claim:
    if status == S.CHECK:
        return claim_mark_check(claim=claim, actor=actor, expected_version=expected_version)
    if status == S.DISMISSED:
        return claim_dismiss(claim=claim, actor=actor, reason=reason, expected_version=expected_version)
    if status == S.IN_RESEARCH:
        locked = _lock(claim=claim, actor=actor, expected_version=expected_version)
        if locked.status not in (S.CHECK, S.RETURNED):
            raise TransitionNotAllowed("Only claims to check go into research.")
        before = {"status": locked.status}
        locked.status = S.IN_RESEARCH
        return _save(claim=locked, actor=actor, verb="claim.research", before=before, fields=["status"])
    raise TransitionNotAllowed(f"Claims are not set to {status!r} from the queue.")


@transaction.atomic
def claim_tag(*, claim: Claim, actor: AbstractBaseUser, add: Iterable[str] = (), remove: Iterable[str] = ()) -> Claim:
    locked = _lock(claim=claim, actor=actor, expected_version=None)
    drop = {tag.strip().lower() for tag in remove}
    tags = [tag for tag in locked.tags if tag not in drop]
    tags += [tag for tag in dict.fromkeys(t.strip().lower() for t in add) if tag and tag not in tags]
    if tags == locked.tags:
        return locked
    before = {"tags": list(locked.tags)}
    locked.tags = tags
    return _save(claim=locked, actor=actor, verb="claim.tag", before=before, fields=["tags"])


# --- The queue: saved views and bulk actions ---------------------------------------------


@transaction.atomic
def saved_view_create(*, user: AbstractBaseUser, name: str, query: str) -> SavedView:
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
def saved_view_delete(*, user: AbstractBaseUser, view: SavedView) -> None:
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


def bulk_check_allowed(*, actor: AbstractBaseUser, action: str, params: dict[str, Any]) -> None:
    """The checks made before a bulk action is counted, run or queued (each claim's service
    checks again): reviewers act on claims; only editors assign to someone else."""
    if not has_role(actor, Role.REVIEWER):
        raise PermissionDenied("This needs the reviewer role.")
    if action not in BulkKind.values:
        raise WorkflowError(f"Unknown bulk action {action!r}.")
    if action == BulkKind.ASSIGN and params.get("assignee_id") not in (None, actor.pk) and not has_role(actor, Role.EDITOR):
        raise PermissionDenied("Only editors assign claims to others.")


def _bulk_apply_one(*, claim: Claim, actor: AbstractBaseUser, action: str, params: dict[str, Any], assignee: AbstractBaseUser | None) -> None:
    if action == BulkKind.ASSIGN:
        claim_assign(claim=claim, actor=actor, assignee=assignee, force=has_role(actor, Role.EDITOR))
    elif action == BulkKind.DISMISS:
        claim_dismiss(claim=claim, actor=actor, reason=params["reason"])
    elif action == BulkKind.STATUS:
        claim_set_status(claim=claim, actor=actor, status=params["status"], reason=params.get("reason", ""))
    elif action == BulkKind.TAG:
        claim_tag(claim=claim, actor=actor, add=params.get("add", []), remove=params.get("remove", []))


def bulk_apply(*, actor: AbstractBaseUser, action: str, params: dict[str, Any], claim_ids: list[int]) -> BulkOutcome:
    """Apply an action claim by claim through the workflow services, so each change has its
    guard and its audit row. A claim the action may not touch (a transition not allowed, a
    claim someone else holds, one deleted meanwhile) is skipped, not a failure."""
    bulk_check_allowed(actor=actor, action=action, params=params)
    assignee = None
    if action == BulkKind.ASSIGN and params.get("assignee_id") is not None:
        assignee = get_user_model().objects.get(pk=params["assignee_id"])
    done = skipped = 0
    claims = Claim.objects.filter(pk__in=claim_ids).order_by("pk")
    for claim in claims:
        try:
            _bulk_apply_one(claim=claim, actor=actor, action=action, params=params, assignee=assignee)
        except (WorkflowError, PermissionDenied):
            skipped += 1
        else:
            done += 1
    skipped += len(set(claim_ids)) - done - skipped
    return BulkOutcome(done=done, skipped=skipped)


@transaction.atomic
def bulk_action_create(*, user: AbstractBaseUser, action: str, params: dict[str, Any], claim_ids: list[int]) -> BulkAction:
    """Record a bulk action over a fixed list of claims and queue it once this commits."""
    from factcheck.claims.tasks import bulk_action_run

    bulk_check_allowed(actor=user, action=action, params=params)
    bulk = BulkAction(user=user, action=action, params=params, claim_ids=sorted(set(claim_ids)), total=len(set(claim_ids)))
    bulk.full_clean()
    bulk.save()
    bulk_id = bulk.pk
    transaction.on_commit(lambda: bulk_action_run.apply_async(args=(bulk_id,), queue=settings.CELERY_TASK_DEFAULT_QUEUE))
    return bulk


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
