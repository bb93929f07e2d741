"""Every reviewer-side write on one claim: workflow transitions, assignment, tags, a split,
annotations, evidence, verdicts and their review.

The cluster is the unit of work: it holds the status, assignee, tags and version
(ClaimCluster). Each service locks the one row of the claim's cluster, checks the actor's
role, the transition and (when the caller passes the version it saw) that nobody saved in
between, writes the cluster's row and records one audit event on the appearance acted on, in
one transaction. Notes, evidence and verdicts are written on the
appearance acted on and read for the whole cluster (selectors.claim_workspace); a split
(claim_split) takes a wrong appearance out of its cluster.

The workflow:

    new -> check ("check it") -> in_research -> drafted -> approved
      \\-> dismissed (reason)                       \\-> returned (comment) -> drafted ...
    approved -> drafted (a new verdict revision; the approved one stays published)
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from factcheck.accounts.roles import Role, has_role
from factcheck.audit.models import AuditEvent
from factcheck.audit.services import audit_record
from factcheck.claims.models import DISMISS_REASON_MAX_CHARS, Annotation, Claim, ClaimCluster, ClusterSplit, Evidence, TriageLabel, Verdict
from factcheck.claims.workflow.errors import HeldByOther, StaleVersion, TransitionNotAllowed
from factcheck.claims.workflow.reviewed import claim_reviewed_default
from factcheck.claims.workflow.selectors import VERDICT_NEWEST_FIRST, claim_cluster_ids
from factcheck.factchecks.library import factcheck_record_verdict
from pipeline.cluster_state import SPLIT_OUT
from pipeline.merge import MERGE_LOCK_ID
from pipeline.sql import statement
from pipeline.stories_store import refresh_story_repeats

S = Claim.Status

# status -> the statuses each action may start from.
CHECK_FROM = {S.NEW, S.DISMISSED}
DISMISS_FROM = {S.NEW, S.CHECK, S.IN_RESEARCH}
RESEARCH_FROM = {S.CHECK}
DRAFT_FROM = {S.CHECK, S.IN_RESEARCH, S.DRAFTED, S.RETURNED, S.APPROVED}
REOPEN_FROM = {S.DISMISSED}

# The workflow actions a reviewer starts on a claim, and the statuses each may start from:
# what the services below enforce, and what pages offer (claim_allowed_actions).
ACTION_FROM: dict[str, set[Claim.Status]] = {
    "check": CHECK_FROM,
    "dismiss": DISMISS_FROM,
    "research": RESEARCH_FROM,
    "draft": DRAFT_FROM,
}

MAX_TAGS = 20


# --- helpers -----------------------------------------------------------------------------


def require_role(actor: User, role: Role, what: str) -> None:
    if not has_role(actor, role):
        raise PermissionDenied(f"{what} needs the {role.name.lower()} role.")


@dataclass(frozen=True)
class LockedCluster:
    """The appearance acted on and its cluster, whose row is locked until the transaction
    ends (claim.cluster is that row)."""

    claim: Claim
    cluster: ClaimCluster

    def appearance_ids(self) -> list[int]:
        """Every appearance of the cluster, the one acted on included (audit rows stay on them)."""
        return list(Claim.objects.filter(cluster__cluster_key=self.cluster.cluster_key).order_by("id").values_list("id", flat=True))


def _locked_cluster(claim: Claim) -> LockedCluster:
    """Lock the row of the claim's cluster. A merge or a split may move the claim to another
    cluster between reading it and locking: then read it again."""
    while True:
        locked = Claim.objects.get(pk=claim.pk)
        cluster = ClaimCluster.objects.select_for_update(of=("self",)).select_related("assignee").get(cluster_key=locked.cluster_id)
        if Claim.objects.filter(pk=claim.pk, cluster__cluster_key=cluster.cluster_key).exists():
            locked.cluster = cluster
            return LockedCluster(claim=locked, cluster=cluster)


def _changes_since(*, object_ids: Sequence[int], version: int) -> list[AuditEvent]:
    return list(
        AuditEvent.objects.filter(object_type="claim", object_id__in=object_ids, after__version__gt=version)
        .select_related("actor")
        .order_by("created_at", "id")
    )


def _check_version(locked: LockedCluster, expected_version: int | None) -> None:
    cluster = locked.cluster
    if expected_version is not None and cluster.version != expected_version:
        changes = _changes_since(object_ids=locked.appearance_ids(), version=expected_version)
        raise StaleVersion(
            "Someone else changed this claim after you opened it; nothing was saved. Their changes are listed; reload to see the claim as it is now.",
            current_version=cluster.version,
            changes=changes,
        )


def _check_hold(cluster: ClaimCluster, actor: User, force: bool) -> None:
    if cluster.assignee_id is not None and cluster.assignee_id != actor.pk and not force:
        holder = cluster.assignee
        assert holder is not None, "assignee_id is set"
        raise HeldByOther(holder)


def _state(cluster: ClaimCluster) -> dict[str, Any]:
    return {
        "status": cluster.status,
        "assignee": cluster.assignee.get_username() if cluster.assignee else None,
        "version": cluster.version,
    }


def _locked_for_change(claim: Claim, *, actor: User, expected_version: int | None, force: bool) -> tuple[Claim, ClaimCluster, dict[str, Any]]:
    """The common start of a triage step: the cluster locked, the reviewer's version current,
    nobody else holding it (unless forced); the claim as locked, its cluster, the state before."""
    locked = _locked_cluster(claim)
    _check_version(locked, expected_version)
    _check_hold(locked.cluster, actor, force)
    return locked.claim, locked.cluster, _state(locked.cluster)


def _save(cluster: ClaimCluster, fields: Iterable[str]) -> None:
    """Validate the cluster's new state and write it, with the next version: one row."""
    cluster.version += 1
    cluster.full_clean(exclude=["first_claim", "lead_claim"], validate_unique=False, validate_constraints=False)
    cluster.save(update_fields=[*fields, "version", "updated_at"])


def _record(claim: Claim, *, actor: User, verb: str, before: dict[str, Any], comment: str = "", **extra: Any) -> None:
    audit_record(
        actor=actor,
        verb=verb,
        object_type="claim",
        object_id=claim.pk,
        before=before,
        after={**_state(claim.cluster), **extra},
        comment=comment,
    )


def _transition(cluster: ClaimCluster, *, to: str, allowed_from: set[Claim.Status], action: str) -> None:
    if cluster.status not in allowed_from:
        raise TransitionNotAllowed(
            f"Cannot {action}: the claim is {cluster.get_status_display().lower()}."
        )
    cluster.status = to


def claim_allowed_actions(*, claim_status: str, user: AbstractBaseUser | AnonymousUser) -> frozenset[str]:
    """The workflow actions (ACTION_FROM's keys) the services let `user` start on a claim in
    `claim_status`, before a hold by someone else or a stale version refuses one."""
    if not has_role(user, Role.REVIEWER):
        return frozenset()
    return frozenset(action for action, allowed_from in ACTION_FROM.items() if claim_status in allowed_from)


# --- assignment ----------------------------------------------------------------------------


@transaction.atomic
def claim_assign(
    *,
    claim: Claim,
    actor: User,
    assignee: User | None,
    expected_version: int | None = None,
    force: bool = False,
) -> Claim:
    """Give the claim to one person (or to nobody).

    Reviewers take claims for themselves and release their own; taking one held by
    someone else needs force=True (the UI asks first). Editors assign to anyone.
    """
    require_role(actor, Role.REVIEWER, "Assigning a claim")
    locked = _locked_cluster(claim)
    claim, cluster = locked.claim, locked.cluster
    _check_version(locked, expected_version)
    if assignee is not None and not has_role(assignee, Role.REVIEWER):
        raise ValidationError(f"{assignee.get_username()} is not a reviewer and cannot be assigned claims.")
    is_editor = has_role(actor, Role.EDITOR)
    if not is_editor:
        if assignee is not None and assignee.pk != actor.pk:
            raise PermissionDenied("Only editors assign claims to other people.")
        if assignee is None and cluster.assignee_id not in (None, actor.pk):
            raise PermissionDenied("Only editors release a claim someone else holds.")
    if assignee is not None and assignee.pk == actor.pk:
        _check_hold(cluster, actor, force)
    if cluster.assignee_id == (assignee.pk if assignee else None):
        return claim
    before = _state(cluster)
    cluster.assignee = assignee
    _save(cluster, ["assignee"])
    _record(claim, actor=actor, verb="claim.assign" if assignee else "claim.release", before=before)
    return claim


# --- triage and research -----------------------------------------------------------------


@transaction.atomic
def claim_mark_check(*, claim: Claim, actor: User, expected_version: int | None = None, force: bool = False) -> Claim:
    """Triage: worth checking. Also how a dismissed claim is reconsidered."""
    require_role(actor, Role.REVIEWER, "Triaging a claim")
    claim, cluster, before = _locked_for_change(claim, actor=actor, expected_version=expected_version, force=force)
    _transition(cluster, to=S.CHECK, allowed_from=CHECK_FROM, action="mark it “check it”")
    cluster.dismiss_reason = ""
    _save(cluster, ["status", "dismiss_reason"])
    _record(claim, actor=actor, verb="claim.check", before=before)
    triage_label_record(claim=claim, decision=TriageLabel.Decision.CHECK, by=actor)
    return claim


@transaction.atomic
def claim_dismiss(*, claim: Claim, actor: User, reason: str, expected_version: int | None = None, force: bool = False) -> Claim:
    """Triage: not worth checking, and why."""
    require_role(actor, Role.REVIEWER, "Dismissing a claim")
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("Say why the claim is dismissed.")
    if len(reason) > DISMISS_REASON_MAX_CHARS:
        raise ValidationError(f"Keep the reason to {DISMISS_REASON_MAX_CHARS} characters.")
    claim, cluster, before = _locked_for_change(claim, actor=actor, expected_version=expected_version, force=force)
    _transition(cluster, to=S.DISMISSED, allowed_from=DISMISS_FROM, action="dismiss it")
    cluster.dismiss_reason = reason
    _save(cluster, ["status", "dismiss_reason"])
    _record(claim, actor=actor, verb="claim.dismiss", before=before, comment=reason)
    triage_label_record(claim=claim, decision=dismissal_decision(reason), by=actor)
    return claim


# A dismissal whose reason begins "not a claim" (an opinion, a question, a fragment) says the
# sentence is no claim at all; any other reason, that it is a claim not worth checking.
NOT_A_CLAIM_REASON = re.compile(r"^\W*not an? (?:factual )?claim\b", re.IGNORECASE)


def dismissal_decision(reason: str) -> str:
    return TriageLabel.Decision.NOT_A_CLAIM if NOT_A_CLAIM_REASON.match(reason) else TriageLabel.Decision.NOT_WORTH_CHECKING


def triage_label_record(*, claim: Claim, decision: str, by: User) -> TriageLabel:
    """Keep a reviewer's triage decision as a label for the ranking model (the appearance's
    latest decision replaces an earlier one), in the caller's transaction: with what the
    pipeline found of the claim, and the model version that scored it."""
    label = TriageLabel.objects.filter(claim_key=claim.claim_key).first() or TriageLabel(claim_key=claim.claim_key)
    label.claim = claim
    label.article_id = claim.article_id
    label.sentence = claim.sentence
    label.context = claim.context
    label.claim_view = {
        "score": claim.score, "claim_type": claim.claim_type, "claim_types": list(claim.claim_types or []),
        "attribution": claim.attribution, "rank_signals": claim.rank_signals or {},
    }
    label.decision = decision
    label.model_version_id = claim.model_version_id
    label.decided_by = by
    label.decided_at = timezone.now()
    label.full_clean()
    label.save()
    return label


@transaction.atomic
def claim_start_research(*, claim: Claim, actor: User, expected_version: int | None = None, force: bool = False) -> Claim:
    """Someone starts researching the claim; it becomes theirs."""
    require_role(actor, Role.REVIEWER, "Researching a claim")
    claim, cluster, before = _locked_for_change(claim, actor=actor, expected_version=expected_version, force=force)
    _transition(cluster, to=S.IN_RESEARCH, allowed_from=RESEARCH_FROM, action="start research")
    cluster.assignee = actor
    _save(cluster, ["status", "assignee"])
    _record(claim, actor=actor, verb="claim.research", before=before)
    return claim


def claim_set_status(
    *,
    claim: Claim,
    actor: User,
    status: str,
    reason: str = "",
    expected_version: int | None = None,
    force: bool = False,
) -> Claim:
    """The triage/research transition that leads to `status` (bulk "set status").

    Drafted, approved and returned come only from verdict actions.
    """
    if status == S.CHECK:
        return claim_mark_check(claim=claim, actor=actor, expected_version=expected_version, force=force)
    if status == S.DISMISSED:
        return claim_dismiss(claim=claim, actor=actor, reason=reason, expected_version=expected_version, force=force)
    if status == S.IN_RESEARCH:
        return claim_start_research(claim=claim, actor=actor, expected_version=expected_version, force=force)
    if status in S.values:
        raise TransitionNotAllowed(f"“{S(status).label}” is reached through the verdict, not set directly.")
    raise ValidationError(f"Unknown status {status!r}.")


def normalise_tag(tag: str) -> str:
    return " ".join(tag.strip().lower().split())[:40]


@transaction.atomic
def claim_tag(*, claim: Claim, actor: User, add: Sequence[str] = (), remove: Sequence[str] = ()) -> Claim:
    require_role(actor, Role.REVIEWER, "Tagging a claim")
    locked = _locked_cluster(claim)
    claim, cluster = locked.claim, locked.cluster
    added = [t for t in (normalise_tag(t) for t in add) if t]
    removed = {normalise_tag(t) for t in remove}
    tags = [t for t in cluster.tags if t not in removed]
    tags += [t for t in dict.fromkeys(added) if t not in tags]
    # Two merged clusters may carry more together; removing tags is then still allowed.
    if len(tags) > MAX_TAGS and len(tags) > len(cluster.tags):
        raise ValidationError(f"A claim carries at most {MAX_TAGS} tags.")
    if tags == cluster.tags:
        return claim
    before = {**_state(cluster), "tags": cluster.tags}
    cluster.tags = tags
    _save(cluster, ["tags"])
    _record(claim, actor=actor, verb="claim.tag", before=before, tags=tags)
    return claim


# --- the cluster -------------------------------------------------------------------------

EVERY_CLUSTER = "SELECT COALESCE(array_agg(cluster_key), '{}') FROM claim_clusters"


def _split_key(claim: Claim) -> str:
    """The split appearance's new cluster key: its own claim key, unless a cluster goes by
    it (it is the key of the cluster it leaves, the smallest claim key there); then one
    derived from it."""
    if not ClaimCluster.objects.filter(cluster_key=claim.claim_key).exists():
        return claim.claim_key
    return hashlib.sha1(f"split:{claim.claim_key}".encode()).hexdigest()


@transaction.atomic
def claim_split(*, claim: Claim, actor: User, reason: str, expected_version: int | None = None) -> Claim:
    """Take an appearance that is not the same claim out of its cluster.

    It becomes a cluster of its own, new and unassigned (SPLIT_OUT: the cluster's decisions
    were not about it); notes, evidence and verdicts written on it stay with the cluster (they
    move to another appearance), so the cluster loses none of its work. The split is recorded
    (ClusterSplit) so the pipeline never joins the two again, and audited on both sides.
    """
    require_role(actor, Role.REVIEWER, "Splitting a cluster")
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("Say why this appearance is not the same claim.")
    if len(reason) > DISMISS_REASON_MAX_CHARS:
        raise ValidationError(f"Keep the reason to {DISMISS_REASON_MAX_CHARS} characters.")
    with connection.cursor() as cursor:
        # As a merge would: never beside one (claims_rerank holds the same lock). Taken before
        # the cluster's row, as the merge takes it before writing clusters: never a deadlock.
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [MERGE_LOCK_ID])
    locked = _locked_cluster(claim)
    claim, cluster = locked.claim, locked.cluster
    _check_version(locked, expected_version)
    ids = locked.appearance_ids()
    rest = [pk for pk in ids if pk != claim.pk]
    if not rest:
        raise TransitionNotAllowed("This claim appears only here: there is nothing to split it from.")
    # The cluster's verdict goes on with the cluster: to an appearance with none of its own
    # (revisions are numbered per appearance).
    holds_verdicts = Verdict.objects.filter(claim=claim).exists()
    with_verdicts = set(Verdict.objects.filter(claim_id__in=rest).values_list("claim_id", flat=True))
    heir = next((pk for pk in rest if pk not in with_verdicts), None) if holds_verdicts else rest[0]
    if heir is None:
        raise TransitionNotAllowed("Every other appearance holds a verdict of its own; this one's cannot move to them.")
    moved = {
        "annotations": sorted(Annotation.objects.filter(claim=claim).values_list("id", flat=True)),
        "evidence": sorted(Evidence.objects.filter(claim=claim).values_list("id", flat=True)),
        "verdicts": sorted(Verdict.objects.filter(claim=claim).values_list("id", flat=True)),
    }
    Annotation.objects.filter(claim=claim).update(claim_id=heir)
    Evidence.objects.filter(claim=claim).update(claim_id=heir)
    Verdict.objects.filter(claim=claim).update(claim_id=heir)

    old_key = cluster.cluster_key
    before = {**_state(cluster), "cluster": old_key}
    # A cluster of its own, starting as the rule for a split says (pipeline/cluster_state.py),
    # at a version above the one it leaves, so a page open on it from before is refused. (A
    # key split out before and since rejoined has its row still, emptied: it starts over.)
    own, _ = ClaimCluster.objects.update_or_create(
        cluster_key=_split_key(claim),
        defaults={
            "status": SPLIT_OUT.status, "assignee": None, "tags": list(SPLIT_OUT.tags),
            "dismiss_reason": SPLIT_OUT.dismiss_reason, "version": cluster.version + 1,
        },
    )
    Claim.objects.filter(pk=claim.pk).update(cluster_id=own.cluster_key, updated_at=timezone.now())
    claim.cluster = own
    ClusterSplit.objects.create(claim_key=claim.claim_key, apart_cluster_key=old_key, split_by=actor)
    with connection.cursor() as cursor:
        # The statistics and standing priorities of both sides, through the pipeline's own
        # statements, which take the clusters to refresh as a parameter.
        touched = {"cluster_keys": [old_key, own.cluster_key]}
        cursor.execute(statement("refresh_clusters"), touched)
        cursor.execute(statement("refresh_cluster_priorities"), touched)
        refresh_story_repeats(cursor, touched["cluster_keys"])
    _record(claim, actor=actor, verb="claim.split", before=before, comment=reason, cluster=own.cluster_key, moved_to=heir, moved=moved)
    audit_record(
        actor=actor, verb="cluster.split", object_type="claim", object_id=heir, comment=reason,
        before={"cluster": old_key, "appearances": len(ids)},
        after={"cluster": old_key, "appearances": len(rest), "split_out": claim.pk, "version": cluster.version},
    )
    return claim


# --- annotations and evidence ------------------------------------------------------------


@transaction.atomic
def annotation_add(*, claim: Claim, actor: User, body: str, submission_key: uuid.UUID | None = None) -> Annotation:
    """Add a note. A submission_key already used on this claim returns that note instead:
    the claim's lock makes a second copy of the same form wait, then find the first."""
    require_role(actor, Role.REVIEWER, "Annotating a claim")
    body = (body or "").strip()
    if not body:
        raise ValidationError("The note is empty.")
    locked = _locked_cluster(claim)
    claim = locked.claim
    if submission_key is not None and (done := Annotation.objects.filter(claim=claim, submission_key=submission_key).first()):
        return done
    annotation = Annotation(claim=claim, author=actor, body=body, submission_key=submission_key)
    annotation.full_clean()
    annotation.save()
    audit_record(
        actor=actor, verb="annotation.add", object_type="claim", object_id=claim.pk,
        after={"annotation": annotation.pk, "version": locked.cluster.version}, comment=body[:500],
    )
    return annotation


@transaction.atomic
def evidence_add(
    *, claim: Claim, actor: User, kind: str, url: str, title: str, note: str = "", submission_key: uuid.UUID | None = None
) -> Evidence:
    """Add a source; a submission_key already used on this claim returns that entry (as for notes)."""
    require_role(actor, Role.REVIEWER, "Adding evidence")
    locked = _locked_cluster(claim)
    claim = locked.claim
    if submission_key is not None and (done := Evidence.objects.filter(claim=claim, submission_key=submission_key).first()):
        return done
    evidence = Evidence(
        claim=claim, kind=kind, url=url.strip(), title=title.strip(), note=note.strip(), added_by=actor, submission_key=submission_key
    )
    evidence.full_clean()
    evidence.save()
    audit_record(
        actor=actor, verb="evidence.add", object_type="claim", object_id=claim.pk,
        after={"evidence": evidence.pk, "kind": kind, "url": evidence.url, "version": locked.cluster.version},
    )
    return evidence


# --- verdicts ----------------------------------------------------------------------------


def claim_reviewed_default_for(claim: Claim) -> str:
    """The claim reviewed a verdict on `claim` starts from (claims.workflow.reviewed)."""
    quantities = [str(q.get("text") or "") for q in claim.quantities or [] if isinstance(q, dict)]
    return claim_reviewed_default(claim.sentence, attribution=claim.attribution, quantities=quantities)


def verdict_current(claim: Claim) -> Verdict | None:
    """The verdict of the claim's cluster: the revision written last on any appearance."""
    return Verdict.objects.filter(claim_id__in=claim_cluster_ids(claim=claim)).order_by(*VERDICT_NEWEST_FIRST).first()


def _verdict_state(verdict: Verdict) -> dict[str, Any]:
    return {"verdict": verdict.pk, "revision": verdict.revision, "rating": verdict.rating, "verdict_status": verdict.status}


@transaction.atomic
def verdict_draft(
    *,
    claim: Claim,
    actor: User,
    rating: str,
    headline: str,
    explanation: str,
    claim_reviewed: str = "",
    evidence_ids: Sequence[int] = (),
    expected_version: int | None = None,
    force: bool = False,
) -> Verdict:
    """Write the verdict and send it for approval.

    `expected_version` is the version of the verdict the author started from (None for a
    first draft). A draft or returned verdict is edited in place; an approved one is never
    changed: the edit becomes the next revision. `claim_reviewed` is the claim as checked
    (what the ClaimReview export names); left blank, the default made from the sentence.
    """
    require_role(actor, Role.REVIEWER, "Drafting a verdict")
    locked = _locked_cluster(claim)
    claim, cluster = locked.claim, locked.cluster
    _check_hold(cluster, actor, force)
    if cluster.status not in DRAFT_FROM:
        raise TransitionNotAllowed(f"Cannot draft a verdict: the claim is {cluster.get_status_display().lower()}.")
    current = (
        Verdict.objects.select_for_update(of=("self",)).filter(claim__cluster__cluster_key=cluster.cluster_key).order_by(*VERDICT_NEWEST_FIRST).first()
    )
    reviewed = " ".join(claim_reviewed.split()) or claim_reviewed_default_for(claim)
    submitted = {"rating": rating, "headline": headline.strip(), "claim_reviewed": reviewed, "explanation": explanation.strip()}
    if expected_version is not None and (current is None or current.version != expected_version):
        _raise_stale_verdict(locked, current, submitted)
    if expected_version is None and current is not None and current.status != Verdict.Status.APPROVED:
        # A first draft was started while someone else wrote one.
        _raise_stale_verdict(locked, current, submitted)
    evidence = list(Evidence.objects.filter(claim__cluster__cluster_key=cluster.cluster_key, pk__in=list(evidence_ids)))
    if len(evidence) != len(set(evidence_ids)):
        raise ValidationError("Cite only evidence recorded on this claim.")
    before = {**_state(cluster), **(_verdict_state(current) if current else {})}
    if current is None or current.status == Verdict.Status.APPROVED:
        # A new revision continues the cluster's verdict where it is stored (on the appearance
        # its first revision was written on); a cluster's first verdict goes on this one.
        holder_id = current.claim_id if current is not None else claim.pk
        revision = (Verdict.objects.filter(claim_id=holder_id).aggregate(m=Max("revision"))["m"] or 0) + 1
        # The new revision opens with the published wording: its writers are writers of this one.
        inherited = current.contributor_ids if current is not None else []
        verdict = Verdict(claim_id=holder_id, revision=revision, author=actor, contributor_ids=list(inherited), **submitted)
        verb = "verdict.draft" if revision == 1 else "verdict.revise"
    else:
        verdict = current
        for field, value in submitted.items():
            setattr(verdict, field, value)
        verdict.status = Verdict.Status.DRAFT
        verdict.author = actor
        verdict.version += 1
        verb = "verdict.edit"
    # Saving the text, changed or not, makes the actor one of its writers: re-saving someone
    # else's draft must not turn it into text its first writer may approve.
    if actor.pk not in verdict.contributor_ids:
        verdict.contributor_ids = [*verdict.contributor_ids, actor.pk]
    verdict.full_clean(exclude=["evidence"], validate_constraints=False)
    verdict.save()
    verdict.evidence.set(evidence)
    cluster.status = S.DRAFTED
    if cluster.assignee_id is None:
        cluster.assignee = actor
    _save(cluster, ["status", "assignee"])
    _record(claim, actor=actor, verb=verb, before=before, **_verdict_state(verdict))
    return verdict


def _raise_stale_verdict(locked: LockedCluster, current: Verdict | None, submitted: dict[str, str]) -> None:
    differences = {}
    if current is not None:
        differences = {
            field: (value, getattr(current, field))
            for field, value in submitted.items()
            if getattr(current, field) != value
        }
    raise StaleVersion(
        "Someone else saved this verdict after you opened it; your version was not saved. "
        "Compare the two below, then edit the current one.",
        current_version=current.version if current else 0,
        changes=[e for e in _changes_since(object_ids=locked.appearance_ids(), version=0) if e.verb.startswith("verdict.")][-5:],
        differences=differences,
    )


def _locked_verdict(verdict: Verdict) -> tuple[LockedCluster, Verdict]:
    locked = _locked_cluster(verdict.claim)
    return locked, Verdict.objects.select_for_update().get(pk=verdict.pk)


def _check_reviewable(locked: LockedCluster, verdict: Verdict, actor: User, expected_version: int | None, action: str) -> None:
    require_role(actor, Role.EDITOR, f"{action.capitalize()} a verdict")
    if expected_version is not None and verdict.version != expected_version:
        raise StaleVersion(
            "The verdict changed after you opened it; read the new wording before deciding.",
            current_version=verdict.version,
            changes=[e for e in _changes_since(object_ids=locked.appearance_ids(), version=0) if e.verb.startswith("verdict.")][-5:],
        )
    if verdict.status != Verdict.Status.DRAFT:
        raise TransitionNotAllowed(f"Only a verdict awaiting approval can be {action}d; this one is {verdict.get_status_display().lower()}.")
    latest = Verdict.objects.filter(claim__cluster__cluster_key=locked.cluster.cluster_key).order_by(*VERDICT_NEWEST_FIRST).values_list("id", flat=True).first()
    if verdict.pk != latest:
        raise TransitionNotAllowed("This is not the claim's latest verdict revision.")
    if verdict.written_by(actor):
        raise PermissionDenied("A second person must approve or return a verdict; you wrote some of this one.")


@transaction.atomic
def verdict_approve(*, verdict: Verdict, actor: User, expected_version: int | None = None) -> Verdict:
    """An editor who did not write it publishes the verdict."""
    locked, verdict = _locked_verdict(verdict)
    claim, cluster = locked.claim, locked.cluster
    _check_reviewable(locked, verdict, actor, expected_version, "approve")
    before = {**_state(cluster), **_verdict_state(verdict)}
    verdict.status = Verdict.Status.APPROVED
    verdict.approved_by = actor
    verdict.approved_at = timezone.now()
    verdict.review_comment = ""
    verdict.version += 1
    verdict.save(update_fields=["status", "approved_by", "approved_at", "review_comment", "version", "updated_at"])
    cluster.status = S.APPROVED
    _save(cluster, ["status"])
    _record(claim, actor=actor, verb="verdict.approve", before=before, **_verdict_state(verdict))
    # Published means in the library too: the next claim like it is "checked before".
    factcheck_record_verdict(verdict=verdict)
    return verdict


@transaction.atomic
def verdict_return(*, verdict: Verdict, actor: User, comment: str, expected_version: int | None = None) -> Verdict:
    """An editor sends the verdict back to its author with what to change."""
    comment = (comment or "").strip()
    if not comment:
        raise ValidationError("Say what needs to change before returning the verdict.")
    locked, verdict = _locked_verdict(verdict)
    claim, cluster = locked.claim, locked.cluster
    _check_reviewable(locked, verdict, actor, expected_version, "return")
    before = {**_state(cluster), **_verdict_state(verdict)}
    verdict.status = Verdict.Status.RETURNED
    verdict.review_comment = comment
    verdict.full_clean(exclude=["evidence"], validate_unique=False, validate_constraints=False)
    verdict.version += 1
    verdict.save(update_fields=["status", "review_comment", "version", "updated_at"])
    # A returned revision of a published verdict leaves the published one in force; the
    # claim still shows that work is pending on it.
    cluster.status = S.RETURNED
    _save(cluster, ["status"])
    _record(claim, actor=actor, verb="verdict.return", before=before, comment=comment, **_verdict_state(verdict))
    return verdict
