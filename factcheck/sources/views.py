"""Source pages (admins manage sources; every role reads them) and the pasted-link pages
(any reviewer pastes; a link's page is its submitter's, an editor's or an admin's)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from factcheck.accounts.roles import Role, has_role, role_required, signed_in_user
from factcheck.sources import selectors, services
from factcheck.sources.fetcher import FetchRefused
from factcheck.sources.forms import LinkForm
from factcheck.sources.models import LinkSubmission, Source


@require_GET
@role_required(Role.REVIEWER)
def source_list(request: HttpRequest) -> HttpResponse:
    return render(request, "sources/list.html", {"sources": selectors.sources_overview(), "can_manage": has_role(request.user, Role.ADMIN)})


@require_GET
@role_required(Role.REVIEWER)
def source_detail(request: HttpRequest, pk: int) -> HttpResponse:
    page = selectors.source_page(source_id=pk)
    if page is None:
        raise Http404("No such source.")
    return render(request, "sources/detail.html", {"page": page, "source": page.source, "can_manage": has_role(request.user, Role.ADMIN)})


@require_POST
@role_required(Role.ADMIN)
def source_poll_now(request: HttpRequest, pk: int) -> HttpResponse:
    source = get_object_or_404(Source, pk=pk)
    services.source_poll_now(source=source)
    messages.success(request, "The source is due now: its poll starts within a minute.")
    return redirect("sources:detail", pk=source.pk)


def _link_page(request: HttpRequest, *, form: LinkForm | None = None, status: int = 200) -> HttpResponse:
    user = signed_in_user(request)
    return render(request, "sources/link_new.html", {"form": form or LinkForm(), "links": selectors.links_recent(user_id=user.pk)}, status=status)


@require_GET
@role_required(Role.REVIEWER)
def link_new(request: HttpRequest) -> HttpResponse:
    return _link_page(request)


@require_POST
@role_required(Role.REVIEWER)
def link_submit(request: HttpRequest) -> HttpResponse:
    form = LinkForm(request.POST)
    if not form.is_valid():
        return _link_page(request, form=form, status=400)
    try:
        link = services.link_submit(url=form.cleaned_data["url"], created_by=signed_in_user(request))
    except FetchRefused as exc:
        form.add_error("url", str(exc))
        return _link_page(request, form=form, status=400)
    return redirect("sources:link_detail", pk=link.pk)


def _link_check(request: HttpRequest, pk: int) -> None:
    """A link's page is its submitter's; editors and admins see every link (404 otherwise)."""
    submitters = list(LinkSubmission.objects.filter(pk=pk).values_list("created_by_id", flat=True))
    if not submitters or (submitters[0] != request.user.pk and not has_role(request.user, Role.EDITOR)):
        raise Http404("No such link.")


@require_GET
@role_required(Role.REVIEWER)
def link_detail(request: HttpRequest, pk: int) -> HttpResponse:
    _link_check(request, pk)
    progress = selectors.link_progress(link_id=pk)
    if progress is None:
        raise Http404("No such link.")
    template = "sources/_link_progress.html" if request.headers.get("HX-Request") else "sources/link_detail.html"
    return render(request, template, {"progress": progress, "link": progress.link})

