from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from factcheck.accounts.roles import Role, role_required
from factcheck.runs.models import PipelineRun


@require_GET
@role_required(Role.REVIEWER)
def run_list(request: HttpRequest) -> HttpResponse:
    runs = PipelineRun.objects.select_related("import_batch")[:100]
    return render(request, "runs/list.html", {"runs": runs})


@require_GET
@role_required(Role.REVIEWER)
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(PipelineRun.objects.select_related("import_batch", "rerun_of"), pk=pk)
    return render(request, "runs/detail.html", {"run": run})
