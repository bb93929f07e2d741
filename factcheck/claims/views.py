from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from factcheck.accounts.roles import Role, role_required
from factcheck.audit.selectors import audit_timeline
from factcheck.claims import selectors

PAGE_SIZE = 50


@require_GET
@role_required(Role.REVIEWER)
def claim_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.claim_list(), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "claims/list.html", {"page": page})


@require_GET
def claim_detail(request: HttpRequest, pk: int) -> HttpResponse:
    claim = selectors.claim_get_for_user(user=request.user, pk=pk)
    context = {
        "claim": claim,
        "article": claim.article,
        "text": selectors.claim_in_context(claim=claim),
        "appearances": selectors.claim_appearances(claim=claim),
        "timeline": audit_timeline(object_type="claim", object_id=claim.pk),
    }
    return render(request, "claims/detail.html", context)
