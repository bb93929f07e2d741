from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from factcheck.accounts.roles import Role, role_required, signed_in_user
from factcheck.runs import selectors, services
from factcheck.runs.models import PipelineRun


@require_GET
@role_required(Role.REVIEWER)
def run_list(request: HttpRequest) -> HttpResponse:
    runs = list(PipelineRun.objects.select_related("import_batch")[:100])
    unprocessed = selectors.articles_unprocessed().count()
    # Only the unfinished runs have a bar to show (and a page worth polling).
    rows = [(run, None if run.is_finished else selectors.run_progress(run=run)) for run in runs]
    live = any(progress is not None for _, progress in rows)
    return render(request, "runs/list.html", {"rows": rows, "live": live, "unprocessed": unprocessed})


@require_GET
@role_required(Role.REVIEWER)
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(PipelineRun.objects.select_related("import_batch", "rerun_of"), pk=pk)
    reruns = list(PipelineRun.objects.filter(rerun_of=run).order_by("id").values_list("pk", flat=True))
    return render(request, "runs/detail.html", {"run": run, "reruns": reruns, "progress": selectors.run_progress(run=run)})


@require_POST
@role_required(Role.ADMIN)
def run_rerun(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(PipelineRun, pk=pk)
    try:
        rerun = services.run_rerun(run=run, created_by=signed_in_user(request))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("runs:detail", pk=run.pk)
    messages.success(request, f"Run #{rerun.pk} queued over the {rerun.articles_count} articles of run #{run.pk}.")
    return redirect("runs:detail", pk=rerun.pk)
