"""The claim page with its actions.

Every action is a short POST view: role check, form, one service call, then redirect back
to the claim (POST/redirect/GET), or, after a decision on a claim opened from the queue, to
the next claim of that view (its `view` parameter, see _act). A refused action re-renders the claim page with the
user's input kept and the reason shown: 409 when someone else got there first (held
claim, stale version), 400 for invalid input or a transition the workflow does not allow.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from factcheck.accounts.roles import Role, has_role, role_required, signed_in_user
from factcheck.claims.models import Claim, Verdict
from factcheck.claims.queue import selectors as queue_selectors
from factcheck.claims.queue.filters import MY_CLAIMS_VALUES, queue_filter_from
from factcheck.claims.queue.views import queue_url, truncate, view_suffix
from factcheck.claims.ranking.priority import priority_breakdown, priority_reasons
from factcheck.claims.workflow import selectors, services
from factcheck.claims.workflow.errors import HeldByOther, StaleVersion, WorkflowError
from factcheck.claims.workflow.forms import AnnotationForm, AssignForm, EvidenceForm, ReviewForm, SplitForm, TagForm, TriageForm, VerdictForm
from factcheck.factchecks.models import ClaimMatch
from factcheck.factchecks.selectors import claim_match_for_prefill, claim_matches_for, verdict_initial_from_match


def _view_of(params: QueryDict) -> str | None:
    """The queue view a claim page was opened from (its `view` parameter: the queue's query
    string, empty for the whole queue), reduced to its valid filters; None when the page was
    not opened from the queue."""
    if "view" not in params:
        return None
    return queue_filter_from(QueryDict(params.get("view", ""))).querystring()


# What "next claim" goes on to: work still to do (MY_CLAIMS_VALUES's statuses), never a claim
# dismissed, drafted (waiting for an editor) or approved since the view was opened.
STILL_TO_DO = frozenset(MY_CLAIMS_VALUES["status"])


def next_claim_values(values: dict[str, Any]) -> dict[str, Any]:
    """A view's filters as "next claim" walks them: its statuses narrowed to the work still to
    do. A view that names only finished statuses (dismissed claims, to look them over) is
    walked as it is: every claim it shows is finished."""
    chosen = values.get("status") or sorted(STILL_TO_DO)
    to_do = [status for status in chosen if status in STILL_TO_DO]
    return {**values, "status": to_do or chosen}


def _next_in_view(request: HttpRequest, claim: Claim, view: str) -> str | None:
    """The next claim after `claim` in the view's order (the queue's, or a search's groups)
    that is still to do (next_claim_values), whatever the claim's state now: its position is
    where the view showed it, (total, id)."""
    values = next_claim_values(queue_filter_from(QueryDict(view)).values)
    found = queue_selectors.next_in_view(user=request.user, values=values, claim_id=claim.pk, total=claim.total)  # type: ignore[attr-defined]  # claims_for_pages annotates it
    return reverse("claims:detail", args=[found]) + view_suffix(view) if found is not None else None


# --- The claim page ------------------------------------------------------------------------


def _verdict_initial(claim: Claim, workspace: selectors.Workspace, start_from: ClaimMatch | None = None) -> dict[str, Any]:
    current = workspace.current_verdict
    # The claim as checked starts as the tidied sentence, for the reviewer to edit.
    initial: dict[str, Any] = {"version": "", "claim_reviewed": services.claim_reviewed_default_for(claim)}
    if current is not None:
        initial = {
            "rating": current.rating,
            "headline": current.headline,
            "claim_reviewed": current.claim_reviewed or initial["claim_reviewed"],
            "explanation": current.explanation,
            "evidence": [e.pk for e in current.evidence.all()],
            # Editing an approved verdict starts a new revision: there is no version to match.
            "version": "" if current.status == Verdict.Status.APPROVED else current.version,
        }
    if start_from is not None:
        # A verdict started from a confirmed earlier fact-check: its rating and evidence
        # filled in, for the reviewer to edit before sending.
        initial.update(verdict_initial_from_match(match=start_from, evidence=workspace.evidence, current=initial))
    return initial


def _render_claim(request: HttpRequest, claim: Claim, *, status: int = 200, start_from: ClaimMatch | None = None, **forms: Any) -> HttpResponse:
    appearances = selectors.claim_appearances(claim=claim)
    same_figure = selectors.claim_same_figure(claim=claim)
    cluster_ids = [appearance.pk for appearance in appearances]
    workspace = selectors.claim_workspace(claim_ids=cluster_ids)
    current = workspace.current_verdict
    user = request.user
    breakdown = priority_breakdown(claim.priority_parts, recency=claim.recency)  # type: ignore[attr-defined]  # selectors.claims_for_pages annotates it
    context: dict[str, Any] = {
        "claim": claim,
        "priority_breakdown": breakdown,
        "priority_reasons": priority_reasons(claim.priority_parts, breakdown, claim_id=claim.pk),
        "allowed": services.claim_allowed_actions(claim_status=claim.cluster.status, user=user),
        "article": claim.article,
        "text": selectors.claim_in_context(claim=claim),
        "paragraph": selectors.claim_paragraph(claim=claim),
        "appearances": appearances,
        "same_figure": same_figure[: selectors.SAME_FIGURE_SHOWN],
        "same_figure_more": len(same_figure) > selectors.SAME_FIGURE_SHOWN,
        "timeline": selectors.claim_timeline(claim_ids=cluster_ids),
        "workspace": workspace,
        "is_editor": has_role(user, Role.EDITOR),
        "held_by_other": claim.cluster.assignee_id is not None and claim.cluster.assignee_id != user.pk,
        "can_review": (
            current is not None
            and current.status == Verdict.Status.DRAFT
            and has_role(user, Role.EDITOR)
            and not current.written_by(user)
        ),
        "triage_form": TriageForm(initial={"version": claim.cluster.version}),
        "assign_form": AssignForm(initial={"version": claim.cluster.version}),
        "tag_form": TagForm(),
        "annotation_form": AnnotationForm(initial={"submission": uuid.uuid4()}),
        "evidence_form": EvidenceForm(initial={"submission": uuid.uuid4()}),
        "verdict_form": VerdictForm(initial=_verdict_initial(claim, workspace, start_from), claim_ids=cluster_ids, evidence=workspace.evidence),
        "start_from": start_from,
        "matches": claim_matches_for(claim=claim),
        "split_form": SplitForm(),
        "can_split": len(appearances) > 1 and has_role(user, Role.REVIEWER),
        "review_form": ReviewForm(initial={"version": current.version if current else ""}),
        "assignable": selectors.assignable_users() if has_role(user, Role.EDITOR) else [],
    }
    # Opened from the queue, the page goes on through that view: `j` skips to its next claim,
    # a decision moves there, `u` goes back to it.
    view = _view_of(request.GET)
    context.update(
        view_suffix=view_suffix(view),
        queue_view_url=queue_url(view or ""),
        next_claim_url=_next_in_view(request, claim, view) if view is not None else None,
    )
    context.update(forms)
    return render(request, "claims/detail.html", context, status=status)


@require_GET
def claim_detail(request: HttpRequest, pk: int) -> HttpResponse:
    claim = selectors.claim_get_for_user(user=request.user, pk=pk)
    from_match = request.GET.get("from_match", "")
    start_from = claim_match_for_prefill(claim=claim, pk=int(from_match)) if from_match.isdigit() else None
    return _render_claim(request, claim, start_from=start_from)


def claim_page_response(request: HttpRequest, claim: Claim, *, status: int = 200, **context: Any) -> HttpResponse:
    """The claim page with extra context, for the actions other apps put on it (the library's
    matches): a refused action shows its reason here, as the claim's own actions do. The
    claim is read again in the claim page's own shape (with its recency and total)."""
    return _render_claim(request, selectors.claim_get_for_user(user=request.user, pk=claim.pk), status=status, **context)


def _act(
    request: HttpRequest,
    claim: Claim,
    action: Callable[[], object],
    *,
    form_name: str,
    form: Any,
    done: str,
    decision: bool = False,
) -> HttpResponse:
    """Run one service call; on refusal re-render the page with the form as the user left it.
    After a `decision` (a dismissal, a verdict sent, approved or returned) on a page opened
    from the queue, go on to the next claim of that view, as Label Studio and Argilla do."""
    view = _view_of(request.GET)
    # Found before the action: the claim's place in the view is where the queue showed it.
    next_url = _next_in_view(request, claim, view) if decision and view is not None else None
    try:
        action()
    except HeldByOther as refused:
        return _render_claim(request, claim, status=409, held=refused, pending_form=form, pending_action=request.get_full_path(), **{form_name: form})
    except StaleVersion as refused:
        claim.refresh_from_db()
        if form_name == "verdict_form":
            # Keep the user's wording, now against the saved version: sending it again after
            # reading the differences is a deliberate choice, not a silent overwrite.
            form.data = form.data.copy()
            form.data["version"] = str(refused.current_version)
        return _render_claim(request, claim, status=409, conflict=refused, **{form_name: form})
    except (WorkflowError, ValidationError) as refused:
        text = refused.message if isinstance(refused, WorkflowError) else " ".join(refused.messages)
        form.add_error(None, text)
        return _render_claim(request, claim, status=400, **{form_name: form})
    if decision and view is not None:
        if next_url is None:
            messages.success(request, f"{done} That was the last claim of this view.")
            return redirect(queue_url(view))
        messages.success(request, f"{done} This is the next claim of your view.")
        return redirect(next_url)
    messages.success(request, done)
    return redirect(reverse("claims:detail", args=[claim.pk]) + view_suffix(view))


def _claim_for_action(request: HttpRequest, pk: int) -> Claim:
    # The role was checked by the decorator (403); a missing claim is 404.
    return get_object_or_404(selectors.claims_for_pages(), pk=pk)


@require_POST
@role_required(Role.REVIEWER)
def claim_triage(request: HttpRequest, pk: int) -> HttpResponse:
    claim = _claim_for_action(request, pk)
    form = TriageForm(request.POST)
    if not form.is_valid():
        return _render_claim(request, claim, status=400, triage_form=form)
    data = form.cleaned_data
    common = {"claim": claim, "actor": request.user, "expected_version": data["version"], "force": data["force"]}
    action, done = {
        "check": (lambda: services.claim_mark_check(**common), "Marked “check it”."),
        "dismiss": (lambda: services.claim_dismiss(reason=data["reason"], **common), "Dismissed."),
        "research": (lambda: services.claim_start_research(**common), "Research started; the claim is yours."),
    }[data["action"]]
    return _act(request, claim, action, form_name="triage_form", form=form, done=done, decision=data["action"] == "dismiss")


@require_POST
@role_required(Role.REVIEWER)
def claim_assign(request: HttpRequest, pk: int) -> HttpResponse:
    claim = _claim_for_action(request, pk)
    form = AssignForm(request.POST)
    if not form.is_valid():
        return _render_claim(request, claim, status=400, assign_form=form)
    actor = signed_in_user(request)
    to = form.cleaned_data["to"]
    assignee: User | None
    if to == "me":
        assignee = actor
    elif to:
        assignee = get_user_model().objects.filter(pk=int(to), is_active=True).first()
        if assignee is None:
            form.add_error("to", "No such user.")
            return _render_claim(request, claim, status=400, assign_form=form)
    else:
        assignee = None

    def action() -> object:
        return services.claim_assign(
            claim=claim, actor=actor, assignee=assignee,
            expected_version=form.cleaned_data["version"], force=form.cleaned_data["force"],
        )

    done = "Unassigned." if assignee is None else f"Assigned to {assignee.get_username()}."
    return _act(request, claim, action, form_name="assign_form", form=form, done=done)


@require_POST
@role_required(Role.REVIEWER)
def claim_tags(request: HttpRequest, pk: int) -> HttpResponse:
    claim = _claim_for_action(request, pk)
    form = TagForm(request.POST)
    if not form.is_valid():
        return _render_claim(request, claim, status=400, tag_form=form)
    remove = [form.cleaned_data["remove"]] if form.cleaned_data["remove"] else []
    return _act(
        request, claim, lambda: services.claim_tag(claim=claim, actor=signed_in_user(request), add=form.tags_to_add(), remove=remove),
        form_name="tag_form", form=form, done="Tags saved.",
    )


@require_POST
@role_required(Role.REVIEWER)
def claim_annotate(request: HttpRequest, pk: int) -> HttpResponse:
    claim = _claim_for_action(request, pk)
    form = AnnotationForm(request.POST)
    if not form.is_valid():
        return _render_claim(request, claim, status=400, annotation_form=form)
    return _act(
        request, claim,
        lambda: services.annotation_add(
            claim=claim, actor=signed_in_user(request), body=form.cleaned_data["body"], submission_key=form.cleaned_data["submission"]
        ),
        form_name="annotation_form", form=form, done="Note added.",
    )


@require_POST
@role_required(Role.REVIEWER)
def claim_add_evidence(request: HttpRequest, pk: int) -> HttpResponse:
    claim = _claim_for_action(request, pk)
    form = EvidenceForm(request.POST)
    if not form.is_valid():
        return _render_claim(request, claim, status=400, evidence_form=form)
    data = form.cleaned_data
    return _act(
        request, claim,
        lambda: services.evidence_add(
            claim=claim, actor=signed_in_user(request), kind=data["kind"], url=data["url"], title=data["title"], note=data["note"],
            submission_key=data["submission"],
        ),
        form_name="evidence_form", form=form, done="Evidence added.",
    )


@require_POST
@role_required(Role.REVIEWER)
def claim_verdict(request: HttpRequest, pk: int) -> HttpResponse:
    claim = _claim_for_action(request, pk)
    form = VerdictForm(request.POST, claim_ids=selectors.claim_cluster_ids(claim=claim))
    if not form.is_valid():
        return _render_claim(request, claim, status=400, verdict_form=form)
    data = form.cleaned_data

    def action() -> object:
        return services.verdict_draft(
            claim=claim, actor=signed_in_user(request), rating=data["rating"], headline=data["headline"], explanation=data["explanation"],
            claim_reviewed=data["claim_reviewed"], evidence_ids=[e.pk for e in data["evidence"]], expected_version=data["version"], force=data["force"],
        )

    return _act(request, claim, action, form_name="verdict_form", form=form, done="Verdict sent for approval.", decision=True)


@require_POST
@role_required(Role.REVIEWER)
def claim_split(request: HttpRequest, pk: int) -> HttpResponse:
    """Take this appearance out of its cluster (the claim page's appearances list); back to
    the claim page it was sent from."""
    claim = _claim_for_action(request, pk)
    form = SplitForm(request.POST)
    back = claim
    if form.is_valid() and form.cleaned_data["back"] and form.cleaned_data["back"] != claim.pk:
        back = _claim_for_action(request, form.cleaned_data["back"])
    if not form.is_valid():
        return _render_claim(request, back, status=400, split_form=form)
    data = form.cleaned_data
    try:
        services.claim_split(claim=claim, actor=signed_in_user(request), reason=data["reason"], expected_version=data["version"])
    except StaleVersion as refused:
        back.refresh_from_db()
        return _render_claim(request, back, status=409, conflict=refused, split_form=form)
    except (WorkflowError, ValidationError) as refused:
        form.add_error(None, refused.message if isinstance(refused, WorkflowError) else " ".join(refused.messages))
        return _render_claim(request, back, status=400, split_form=form)
    messages.success(request, f"Split “{truncate(claim.sentence, 60)}” out of the cluster: it is a claim of its own now.")
    return redirect(reverse("claims:detail", args=[back.pk]))


@require_POST
@role_required(Role.EDITOR)
def verdict_review(request: HttpRequest, pk: int) -> HttpResponse:
    verdict = get_object_or_404(Verdict.objects.select_related("claim"), pk=pk)
    claim = _claim_for_action(request, verdict.claim_id)
    form = ReviewForm(request.POST)
    if not form.is_valid():
        return _render_claim(request, claim, status=400, review_form=form)
    data = form.cleaned_data
    if data["decision"] == "approve":
        action: Callable[[], object] = lambda: services.verdict_approve(verdict=verdict, actor=signed_in_user(request), expected_version=data["version"])  # noqa: E731
        done = "Verdict approved and published."
    else:
        action = lambda: services.verdict_return(verdict=verdict, actor=signed_in_user(request), comment=data["comment"], expected_version=data["version"])  # noqa: E731
        done = "Verdict returned to its author."
    return _act(request, claim, action, form_name="review_form", form=form, done=done, decision=True)
