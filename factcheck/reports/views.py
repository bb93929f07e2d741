"""Exports: published ClaimReviews (page, JSON-LD, feed), the claims CSV and the PDF report.

Who may do what:
- ClaimReview page, document and feed: reviewers and up; anyone (no login) when
  FACTCHECK_PUBLIC_CLAIMREVIEW is on. Only approved verdicts are ever shown there.
- CSV and PDF: reviewers and up (403 otherwise); a saved view is its owner's (404).
Every export is a GET that writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, QueryDict, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from factcheck.accounts.roles import Role, role_required, signed_in_user
from factcheck.claims import selectors as claim_selectors
from factcheck.claims.filters import queue_filter_from
from factcheck.claims.models import Evidence, Verdict
from factcheck.organisation import Organisation, PublishingNotConfigured, organisation_from_settings, require_publishing
from factcheck.reports import pdf, selectors
from factcheck.reports.claimreview import (
    BEST_RATING,
    RATING_MEANING,
    RATING_VALUE,
    WORST_RATING,
    claimreview_document,
    json_for_script,
)
from factcheck.reports.csv_export import csv_lines
from factcheck.reports.forms import CsvOptionsForm, FeedForm, ReportForm

JSON_LD = "application/ld+json; charset=utf-8"


def _errors_text(*forms: Any) -> str:
    lines: list[str] = []
    for form in forms:
        for name, errors in form.errors.items():
            lines.extend(f"{name}: {error}" if name != "__all__" else str(error) for error in errors)
    return "\n".join(lines)


def _page_url(request: HttpRequest, claim_id: int) -> str:
    path = reverse("factchecks:page", args=[claim_id])
    base = settings.FACTCHECK_PUBLIC_BASE_URL
    return base.rstrip("/") + path if base else request.build_absolute_uri(path)


def _login_unless_public(request: HttpRequest) -> HttpResponse | None:
    if settings.FACTCHECK_PUBLIC_CLAIMREVIEW or request.user.is_authenticated:
        return None
    return redirect_to_login(request.get_full_path())


# --- ClaimReview -------------------------------------------------------------------------


def _not_published(refused: PublishingNotConfigured) -> HttpResponse:
    """503: the server is not set up to publish (its configuration, not the request, is wrong)."""
    return HttpResponse(refused.message, status=503, content_type="text/plain; charset=utf-8")


@login_not_required
@require_GET
def factcheck_page(request: HttpRequest, claim_id: int) -> HttpResponse:
    """The published verdict as a reader sees it, its ClaimReview embedded as JSON-LD."""
    if (response := _login_unless_public(request)) is not None:
        return response
    try:
        organisation = require_publishing()
    except PublishingNotConfigured as refused:
        return _not_published(refused)
    source = selectors.review_source_for(user=request.user, claim_id=claim_id)
    document = claimreview_document(source, page_url=_page_url(request, claim_id), organisation=organisation)
    evidence = Evidence.objects.filter(verdicts__claim_id=source.claim_id, verdicts__revision=source.revision).order_by("id")
    context = {
        "source": source,
        "document": document,
        "json_ld": json_for_script(document),
        "rating_label": Verdict.Rating(source.rating).label,
        "rating_meaning": RATING_MEANING[source.rating],
        "rating_value": RATING_VALUE[source.rating],
        "best_rating": BEST_RATING,
        "worst_rating": WORST_RATING,
        "evidence": list(evidence),
        "organisation": organisation,
    }
    return render(request, "reports/factcheck.html", context)


@login_not_required
@require_GET
def factcheck_jsonld(request: HttpRequest, claim_id: int) -> HttpResponse:
    if (response := _login_unless_public(request)) is not None:
        return response
    try:
        organisation = require_publishing()
    except PublishingNotConfigured as refused:
        return _not_published(refused)
    source = selectors.review_source_for(user=request.user, claim_id=claim_id)
    document = claimreview_document(source, page_url=_page_url(request, claim_id), organisation=organisation)
    return HttpResponse(json.dumps(document, ensure_ascii=False, indent=2), content_type=JSON_LD)


def _feed(request: HttpRequest, form: FeedForm, organisation: Organisation) -> Iterator[str]:
    yield '{\n"@context": "https://schema.org",\n"@graph": ['
    separator = "\n"
    for source in selectors.review_sources(since=form.cleaned_data["since"]):
        document = claimreview_document(source, page_url=_page_url(request, source.claim_id), organisation=organisation)
        del document["@context"]
        yield separator + json.dumps(document, ensure_ascii=False)
        separator = ",\n"
    yield "\n]}\n"


@login_not_required
@require_GET
def factcheck_feed(request: HttpRequest) -> HttpResponseBase:
    """Every published verdict as one JSON-LD document (@graph), streamed, oldest approval
    first; `?since=<ISO date/time>` gives those approved since then."""
    if (response := _login_unless_public(request)) is not None:
        return response
    if not selectors.claimreview_visible(request.user):
        raise PermissionDenied("This needs the reviewer role.")
    form = FeedForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest(_errors_text(form), content_type="text/plain; charset=utf-8")
    try:
        organisation = require_publishing()
    except PublishingNotConfigured as refused:
        return _not_published(refused)
    return StreamingHttpResponse(_feed(request, form, organisation), content_type=JSON_LD)


# --- CSV ---------------------------------------------------------------------------------


@require_GET
@role_required(Role.REVIEWER)
def claims_csv(request: HttpRequest) -> HttpResponseBase:
    """The claims matching the queue's filters (the same query string), every one of them,
    streamed. A filter the queue would ignore as invalid is refused here (400): an export
    must not quietly hold more than was asked for."""
    queue_filter = queue_filter_from(request.GET)
    options = CsvOptionsForm(request.GET)
    options.is_valid()
    if queue_filter.form.errors or options.errors:
        return HttpResponseBadRequest(_errors_text(queue_filter.form, options), content_type="text/plain; charset=utf-8")
    rows = selectors.csv_rows(user=request.user, values=queue_filter.values)
    response = StreamingHttpResponse(csv_lines(rows, bom=options.cleaned_data["bom"]), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="claims-{timezone.now():%Y%m%d-%H%M%S}.csv"'
    return response


# --- PDF report --------------------------------------------------------------------------


def _report_form_page(request: HttpRequest, form: ReportForm, *, status: int = 200, error: str = "") -> HttpResponse:
    context = {"form": form, "saved_views": claim_selectors.saved_views_for(user=signed_in_user(request)), "error": error}
    return render(request, "reports/report_form.html", context, status=status)


@require_GET
@role_required(Role.REVIEWER)
def report_form(request: HttpRequest) -> HttpResponse:
    today = timezone.localdate()
    form = ReportForm(initial={"date_from": today.replace(day=1), "date_to": today, **request.GET.dict()})
    return _report_form_page(request, form)


@require_GET
@role_required(Role.REVIEWER)
def report_pdf(request: HttpRequest) -> HttpResponse:
    form = ReportForm(request.GET)
    if not form.is_valid():
        return _report_form_page(request, form, status=400)
    data = form.cleaned_data
    values: dict[str, Any] = {}
    view_name = ""
    if data["view"]:
        view = claim_selectors.saved_view_get_for_user(user=signed_in_user(request), pk=data["view"])
        values, view_name = queue_filter_from(QueryDict(view.query)).values, view.name
    scope = selectors.ReportScope(date_from=data["date_from"], date_to=data["date_to"], values=values, view_name=view_name)
    count = selectors.report_verdict_count(scope=scope, user=request.user)
    if count > settings.FACTCHECK_REPORT_MAX_VERDICTS:
        error = (
            f"This report would hold {count} verdicts; one report holds at most {settings.FACTCHECK_REPORT_MAX_VERDICTS}. "
            "Choose a shorter period or a narrower saved view."
        )
        return _report_form_page(request, form, status=400, error=error)
    report = selectors.report_data(scope=scope, user=request.user)
    html = pdf.report_html(report, organisation=organisation_from_settings(), generated_by=request.user.get_username())
    response = HttpResponse(pdf.render_pdf(html), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="verdicts-report-{timezone.now():%Y%m%d-%H%M%S}.pdf"'
    return response
