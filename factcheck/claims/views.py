"""The claim list and the claim page with its actions.

Every action is a short POST view: role check, form, one service call, then redirect back
to the claim (POST/redirect/GET). A refused action re-renders the claim page with the
user's input kept and the reason shown: 409 when someone else got there first (held
claim, stale version), 400 for invalid input or a transition the workflow does not allow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from factcheck.accounts.roles import Role, has_role, role_required
from factcheck.audit.selectors import audit_timeline
from factcheck.claims import selectors, services
from factcheck.claims.errors import HeldByOther, StaleVersion, WorkflowError
from factcheck.claims.forms import AnnotationForm, AssignForm, EvidenceForm, ReviewForm, TagForm, TriageForm, VerdictForm
from factcheck.claims.models import Claim, Verdict

PAGE_SIZE = 50


@require_GET
@role_required(Role.REVIEWER)
def claim_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.claim_list(), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "claims/list.html", {"page": page})


def _verdict_initial(claim: Claim, workspace: selectors.Workspace) -> dict[str, Any]:
    current = workspace.current_verdict
    if current is None:
        return {"version": ""}
    return {
        "rating": current.rating,
        "headline": current.headline,
        "explanation": current.explanation,
        "evidence": [e.pk for e in current.evidence.all()],
        # Editing an approved verdict starts a new revision: there is no version to match.
        "version": "" if current.status == Verdict.Status.APPROVED else current.version,
    }


def _render_claim(request: HttpRequest, claim: Claim, *, status: int = 200, **forms: Any) -> HttpResponse:
    workspace = selectors.claim_workspace(claim=claim)
    current = workspace.current_verdict
    user = request.user
    context: dict[str, Any] = {
        "claim": claim,
        "article": claim.article,
        "text": selectors.claim_in_context(claim=claim),
        "paragraph": selectors.claim_paragraph(claim=claim),
        "appearances": selectors.claim_appearances(claim=claim),
        "timeline": audit_timeline(object_type="claim", object_id=claim.pk),
        "workspace": workspace,
        "is_editor": has_role(user, Role.EDITOR),
        "held_by_other": claim.assignee_id is not None and claim.assignee_id != user.pk,
        "can_review": (
            current is not None
            and current.status == Verdict.Status.DRAFT
            and has_role(user, Role.EDITOR)
            and current.author_id != user.pk
        ),
        "triage_form": TriageForm(initial={"version": claim.version}),
        "assign_form": AssignForm(initial={"version": claim.version}),
        "tag_form": TagForm(),
        "annotation_form": AnnotationForm(),
        "evidence_form": EvidenceForm(),
        "verdict_form": VerdictForm(initial=_verdict_initial(claim, workspace), claim=claim, evidence=workspace.evidence),
        "review_form": ReviewForm(initial={"version": current.version if current else ""}),
        "assignable": selectors.assignable_users() if has_role(user, Role.EDITOR) else [],
    }
    context.update(forms)
    return render(request, "claims/detail.html", context, status=status)


@require_GET
def claim_detail(request: HttpRequest, pk: int) -> HttpResponse:
    claim = selectors.claim_get_for_user(user=request.user, pk=pk)
    return _render_claim(request, claim)


def _act(
    request: HttpRequest,
    claim: Claim,
    action: Callable[[], object],
    *,
    form_name: str,
    form: Any,
    done: str,
) -> HttpResponse:
    """Run one service call; on refusal re-render the page with the form as the user left it."""
    try:
        action()
    except HeldByOther as refused:
        return _render_claim(request, claim, status=409, held=refused, pending_form=form, pending_action=request.path, **{form_name: form})
    except StaleVersion as refused:
        claim.refresh_from_db()
        return _render_claim(request, claim, status=409, conflict=refused, **{form_name: form})
    except (WorkflowError, ValidationError) as refused:
        text = refused.message if isinstance(refused, WorkflowError) else " ".join(refused.messages)
        form.add_error(None, text)
        return _render_claim(request, claim, status=400, **{form_name: form})
    messages.success(request, done)
    return redirect(reverse("claims:detail", args=[claim.pk]))


def _claim_for_action(request: HttpRequest, pk: int) -> Claim:
    # The role was checked by the decorator (403); a missing claim is 404.
    return get_object_or_404(Claim.objects.select_related("article", "article__outlet", "assignee"), pk=pk)


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
    return _act(request, claim, action, form_name="triage_form", form=form, done=done)


@require_POST
@role_required(Role.REVIEWER)
def claim_assign(request: HttpRequest, pk: int) -> HttpResponse:
    claim = _claim_for_action(request, pk)
    form = AssignForm(request.POST)
    if not form.is_valid():
        return _render_claim(request, claim, status=400, assign_form=form)
    to = form.cleaned_data["to"]
    if to == "me":
        assignee = request.user
    elif to:
        assignee = get_user_model().objects.filter(pk=int(to), is_active=True).first()
        if assignee is None:
            form.add_error("to", "No such user.")
            return _render_claim(request, claim, status=400, assign_form=form)
    else:
        assignee = None

    def action() -> object:
        return services.claim_assign(
            claim=claim, actor=request.user, assignee=assignee,
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
        request, claim, lambda: services.claim_tag(claim=claim, actor=request.user, add=form.tags_to_add(), remove=remove),
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
        request, claim, lambda: services.annotation_add(claim=claim, actor=request.user, body=form.cleaned_data["body"]),
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
        lambda: services.evidence_add(claim=claim, actor=request.user, kind=data["kind"], url=data["url"], title=data["title"], note=data["note"]),
        form_name="evidence_form", form=form, done="Evidence added.",
    )


@require_POST
@role_required(Role.REVIEWER)
def claim_verdict(request: HttpRequest, pk: int) -> HttpResponse:
    claim = _claim_for_action(request, pk)
    form = VerdictForm(request.POST, claim=claim)
    if not form.is_valid():
        return _render_claim(request, claim, status=400, verdict_form=form)
    data = form.cleaned_data

    def action() -> object:
        return services.verdict_draft(
            claim=claim, actor=request.user, rating=data["rating"], headline=data["headline"], explanation=data["explanation"],
            evidence_ids=[e.pk for e in data["evidence"]], expected_version=data["version"], force=data["force"],
        )

    return _act(request, claim, action, form_name="verdict_form", form=form, done="Verdict sent for approval.")


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
        action: Callable[[], object] = lambda: services.verdict_approve(verdict=verdict, actor=request.user, expected_version=data["version"])  # noqa: E731
        done = "Verdict approved and published."
    else:
        action = lambda: services.verdict_return(verdict=verdict, actor=request.user, comment=data["comment"], expected_version=data["version"])  # noqa: E731
        done = "Verdict returned to its author."
    return _act(request, claim, action, form_name="review_form", form=form, done=done)


