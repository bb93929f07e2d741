"""Exports for the desk: the claims CSV and the PDF report (the public ClaimReview pages and
feeds are factcheck/publishing's).

Who may do what: reviewers and up (403 otherwise); a saved view is its owner's (404).
Every export is a GET that writes nothing.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, QueryDict, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from factcheck.accounts.roles import Role, role_required, signed_in_user
from factcheck.claims.queue import selectors as claim_selectors
from factcheck.claims.queue.filters import queue_filter_from
from factcheck.publishing.selectors import organisation_banner, organisation_current
from factcheck.reports import pdf, selectors
from factcheck.reports.csv_export import csv_lines
from factcheck.reports.forms import CsvOptionsForm, ReportForm


def _errors_text(*forms: Any) -> str:
    lines: list[str] = []
    for form in forms:
        for name, errors in form.errors.items():
            lines.extend(f"{name}: {error}" if name != "__all__" else str(error) for error in errors)
    return "\n".join(lines)


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
    organisation = organisation_banner()  # read only: an export seeds nothing
    publisher = f"{organisation.name} (demo organisation)" if organisation.is_demo else organisation.name
    lines = csv_lines(rows, bom=options.cleaned_data["bom"], publisher=publisher)
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
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
    html = pdf.report_html(report, organisation=organisation_current(), generated_by=request.user.get_username())
    response = HttpResponse(pdf.render_pdf(html), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="verdicts-report-{timezone.now():%Y%m%d-%H%M%S}.pdf"'
    return response
