from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from factcheck.accounts.roles import Role, role_required, signed_in_user
from factcheck.learning import selectors, services
from factcheck.learning.models import ModelKind, ModelVersion
from factcheck.learning.registry import refittable_kinds


def _kind(kind: str) -> str:
    if kind not in ModelKind.values:
        raise Http404("No such model.")
    return kind


@require_GET
@role_required(Role.ADMIN)
def version_list(request: HttpRequest) -> HttpResponse:
    refittable = refittable_kinds()
    sections: list[dict[str, Any]] = [
        {
            "kind": kind,
            "name": name,
            "versions": list(selectors.versions(kind)),
            "can_roll_back": selectors.previous_version(kind) is not None,
            "refittable": kind in refittable,
            "jobs": selectors.refit_jobs(kind),
        }
        for kind, name in ModelKind.choices
    ]
    live = any(job.status in ("queued", "running") for section in sections for job in section["jobs"])
    return render(request, "learning/versions.html", {"sections": sections, "live": live})


def _done(request: HttpRequest, action: str, call: Callable[[], str]) -> HttpResponse:
    try:
        message = call()
    except ValidationError as exc:
        messages.error(request, f"{action}: {' '.join(exc.messages)}")
    else:
        messages.success(request, message)
    return redirect("learning:versions")


@require_POST
@role_required(Role.ADMIN)
def version_promote(request: HttpRequest, pk: int) -> HttpResponse:
    version = get_object_or_404(ModelVersion, pk=pk)
    by = signed_in_user(request)

    def promote() -> str:
        services.model_version_promote(version=version, by=by)
        return f"{version.label} is now the active {version.get_kind_display().lower()} model."

    return _done(request, "Not promoted", promote)


@require_POST
@role_required(Role.ADMIN)
def version_rollback(request: HttpRequest, kind: str) -> HttpResponse:
    kind = _kind(kind)
    by = signed_in_user(request)

    def rollback() -> str:
        restored = services.model_version_rollback(kind=kind, by=by)
        return f"Rolled back: {restored.label} is the active {restored.get_kind_display().lower()} model again."

    return _done(request, "Not rolled back", rollback)


@require_POST
@role_required(Role.ADMIN)
def refit(request: HttpRequest, kind: str) -> HttpResponse:
    kind = _kind(kind)
    by = signed_in_user(request)

    def request_refit() -> str:
        job = services.refit_request(kind=kind, by=by)
        return f"Refit #{job.pk} queued. The new version appears below as a candidate when it is done; it is not switched on until you promote it."

    return _done(request, "Not queued", request_refit)
