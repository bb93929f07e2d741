"""Import pages: upload or paste, then a batch page that follows the import and its pipeline run."""

from __future__ import annotations

import csv

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from factcheck.accounts.roles import Role, role_required, signed_in_user
from factcheck.articles import selectors, services
from factcheck.articles.forms import PasteForm, UploadForm
from factcheck.articles.models import ImportBatch
from factcheck.reports.csv_export import neutralise


def _new_page(request: HttpRequest, *, upload_form: UploadForm | None = None, paste_form: PasteForm | None = None, status: int = 200) -> HttpResponse:
    context = {
        "upload_form": upload_form or UploadForm(),
        "paste_form": paste_form or PasteForm(),
        "batches": selectors.batches_recent(limit=20),
        "upload_max": settings.FACTCHECK_UPLOAD_MAX_BYTES,
    }
    return render(request, "articles/import_new.html", context, status=status)


@require_GET
@role_required(Role.ADMIN)
def import_new(request: HttpRequest) -> HttpResponse:
    return _new_page(request)


@require_POST
@role_required(Role.ADMIN)
def import_upload(request: HttpRequest) -> HttpResponse:
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _new_page(request, upload_form=form, status=400)
    batch = services.import_upload_start(uploaded=form.cleaned_data["file"], created_by=signed_in_user(request), default_outlet=form.cleaned_data["outlet"])
    return redirect("articles:detail", pk=batch.pk)


@require_POST
@role_required(Role.ADMIN)
def import_paste(request: HttpRequest) -> HttpResponse:
    form = PasteForm(request.POST)
    if not form.is_valid():
        return _new_page(request, paste_form=form, status=400)
    batch = services.import_text(fields=form.cleaned_data, created_by=signed_in_user(request))
    return redirect("articles:detail", pk=batch.pk)


@require_GET
@role_required(Role.ADMIN)
def import_detail(request: HttpRequest, pk: int) -> HttpResponse:
    progress = selectors.batch_progress(batch_id=pk)
    if progress is None:
        raise Http404("No such import.")
    template = "articles/_import_progress.html" if request.headers.get("HX-Request") else "articles/import_detail.html"
    return render(request, template, {"progress": progress, "batch": progress.batch})


@require_GET
@role_required(Role.ADMIN)
def import_errors_csv(request: HttpRequest, pk: int) -> HttpResponse:
    batch = get_object_or_404(ImportBatch.objects.only("pk", "rows_rejected"), pk=pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="import-{batch.pk}-errors.csv"'
    writer = csv.writer(response)
    writer.writerow(["row", "where", "reason"])
    errors = selectors.batch_errors(batch=batch)
    for error in errors:
        # Member names and reasons quote the uploaded file: escaped as the claims CSV escapes formulas.
        writer.writerow([error.get("row", ""), neutralise(str(error.get("where", ""))), neutralise(str(error.get("reason", "")))])
    if batch.rows_rejected > len(errors):
        writer.writerow(["", "", f"{batch.rows_rejected - len(errors)} more rejected rows are counted but not listed."])
    return response


@require_POST
@role_required(Role.ADMIN)
def import_resume(request: HttpRequest, pk: int) -> HttpResponse:
    batch = get_object_or_404(ImportBatch, pk=pk)
    try:
        services.import_batch_resume(batch=batch)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect("articles:detail", pk=batch.pk)
