"""The library's pages: the import upload (admins) and a reviewer's actions on a claim's matches.

Match actions are POSTs from the claim page: access helper (404 for anyone without a role),
form, one service call, then back to the claim (POST/redirect/GET). A refused decision
re-renders the claim page with the reason: 409 when someone decided in between, 400 otherwise.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from factcheck.accounts.roles import Role, role_required, signed_in_user
from factcheck.claims.errors import StaleVersion, WorkflowError
from factcheck.claims.views import claim_page_response
from factcheck.factchecks import selectors, services
from factcheck.factchecks.forms import LibraryUploadForm, MatchDecisionForm


def _import_page(request: HttpRequest, *, form: LibraryUploadForm | None = None, status: int = 200) -> HttpResponse:
    context = {
        "form": form or LibraryUploadForm(),
        "imports": selectors.imports_recent(),
        "library_size": selectors.library_size(),
        "upload_max": settings.FACTCHECK_UPLOAD_MAX_BYTES,
    }
    return render(request, "factchecks/import_new.html", context, status=status)


@require_GET
@role_required(Role.ADMIN)
def import_new(request: HttpRequest) -> HttpResponse:
    return _import_page(request)


@require_POST
@role_required(Role.ADMIN)
def import_upload(request: HttpRequest) -> HttpResponse:
    form = LibraryUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, form=form, status=400)
    batch = services.factcheck_import_upload_start(
        uploaded=form.cleaned_data["file"], created_by=signed_in_user(request), publisher=form.cleaned_data["publisher"]
    )
    return redirect("library:import_detail", pk=batch.pk)


@require_GET
@role_required(Role.ADMIN)
def import_detail(request: HttpRequest, pk: int) -> HttpResponse:
    progress = selectors.import_progress(import_id=pk)
    if progress is None:
        raise Http404("No such import.")
    template = "factchecks/_import_progress.html" if request.headers.get("HX-Request") else "factchecks/import_detail.html"
    return render(request, template, {"progress": progress, "batch": progress.batch})


@require_POST
def match_decide(request: HttpRequest, pk: int) -> HttpResponse:
    match = selectors.claim_match_get_for_user(user=request.user, pk=pk)
    form = MatchDecisionForm(request.POST)
    if not form.is_valid():
        return claim_page_response(request, match.claim, status=400, match_error=form.errors.as_text())
    data = form.cleaned_data
    try:
        services.claim_match_decide(match=match, actor=signed_in_user(request), decision=data["decision"], expected_version=data["version"])
    except StaleVersion as refused:
        return claim_page_response(request, match.claim, status=409, match_error=refused.message)
    except (WorkflowError, ValidationError) as refused:
        text = refused.message if isinstance(refused, WorkflowError) else " ".join(refused.messages)
        return claim_page_response(request, match.claim, status=400, match_error=text)
    messages.success(request, "Match confirmed: the claim was checked before." if data["decision"] == "confirmed" else "Match rejected.")
    return redirect(reverse("claims:detail", args=[match.claim_id]) + "#matches")


@require_POST
def match_verdict_start(request: HttpRequest, pk: int) -> HttpResponse:
    """Start a verdict from a confirmed match: its fact-check becomes evidence, and the claim
    page opens with the verdict form filled in from it, for the reviewer to edit and send."""
    match = selectors.claim_match_get_for_user(user=request.user, pk=pk)
    try:
        services.claim_match_verdict_start(match=match, actor=signed_in_user(request))
    except WorkflowError as refused:
        return claim_page_response(request, match.claim, status=400, match_error=refused.message)
    return redirect(reverse("claims:detail", args=[match.claim_id]) + f"?from_match={match.pk}#verdict")
