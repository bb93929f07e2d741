"""Writes for claims. Each service: keyword-only, one transaction, a guard, an audit row.

PROVISIONAL: these stand in for the lead's workflow services (same interface) until
`git merge main` brings the real ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import F

from factcheck.accounts.roles import Role, has_role
from factcheck.audit.services import audit_record
from factcheck.claims.errors import HeldByOther, StaleVersion, TransitionNotAllowed, WorkflowError
from factcheck.claims.models import Claim

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

