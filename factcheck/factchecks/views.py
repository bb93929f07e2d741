"""The library's pages: its search and each fact-check (every role), the import upload
(admins), and a reviewer's actions on a claim's matches (confirm, reject, attach one found by
hand, start a verdict).

Match actions are POSTs from the claim page: access helper (404 for anyone without a role),
form, one service call, then back to the claim (POST/redirect/GET). A refused decision
re-renders the claim page with the reason: 409 when someone decided in between, 400 otherwise.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from factcheck.accounts.roles import Role, role_required, signed_in_user
from factcheck.claims.workflow.errors import StaleVersion, WorkflowError
from factcheck.claims.workflow.selectors import claim_get_for_user
from factcheck.claims.workflow.views import claim_page_response
from factcheck.factchecks import selectors, services
from factcheck.factchecks.forms import LibrarySearchForm, LibraryUploadForm, MatchAttachForm, MatchDecisionForm
from factcheck.factchecks.models import ClaimMatch


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
    return redirect("factchecks:import_detail", pk=batch.pk)


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


@require_GET
@role_required(Role.REVIEWER)
def library_list(request: HttpRequest) -> HttpResponse:
    """The library searched: full text, publisher, rating, dates. Opened from a claim's page
    (`claim`), each result can be attached to that claim."""
    form = LibrarySearchForm(request.GET or None, publishers=selectors.factcheck_publishers())
    claim = None
    results: Any = selectors.factchecks_search()
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        results = selectors.factchecks_search(
            text=data["q"], publisher=data["publisher"], rating=data["rating"], published_from=data["date_from"], published_to=data["date_to"]
        )
        if data["claim"]:
            claim = claim_get_for_user(user=request.user, pk=data["claim"])
    elif form.is_bound:
        results = selectors.factchecks_search().none()
    page = Paginator(results, selectors.LIBRARY_PAGE_SIZE).get_page(request.GET.get("page"))
    attached = set(ClaimMatch.objects.filter(claim=claim, status=ClaimMatch.Status.CONFIRMED).values_list("factcheck_id", flat=True)) if claim else set()
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request, "factchecks/library.html",
        {"form": form, "page": page, "claim": claim, "attached": attached, "query": query.urlencode(), "library_size": selectors.library_size()},
        status=200 if not form.is_bound or form.is_valid() else 400,
    )


@require_GET
@role_required(Role.REVIEWER)
def factcheck_detail(request: HttpRequest, pk: int) -> HttpResponse:
    factcheck = selectors.factcheck_get_for_user(user=request.user, pk=pk)
    return render(request, "factchecks/detail.html", {"factcheck": factcheck, "matches": selectors.factcheck_matches(factcheck=factcheck)})


@require_POST
@role_required(Role.REVIEWER)
def match_attach(request: HttpRequest) -> HttpResponse:
    """Attach a fact-check found in the library to a claim: a confirmed match (audited)."""
    form = MatchAttachForm(request.POST)
    if not form.is_valid():
        return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain")
    claim = claim_get_for_user(user=request.user, pk=form.cleaned_data["claim"])
    factcheck = selectors.factcheck_get_for_user(user=request.user, pk=form.cleaned_data["factcheck"])
    services.claim_match_attach(claim=claim, factcheck=factcheck, actor=signed_in_user(request))
    messages.success(request, f"Attached {factcheck.publisher}'s fact-check: the claim was checked before.")
    return redirect(reverse("claims:detail", args=[claim.pk]) + "#matches")
