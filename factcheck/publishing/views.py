"""The organisation's admin page, and the public fact-check pages.

Public (no login, anyone): each published verdict's page with its ClaimReview embedded, its
ClaimReview document, the index of published fact checks, an Atom feed and the ClaimReview
feed another desk imports into its library. Only approved verdicts are ever shown there, and
nothing staff-only (notes, drafts, review comments, history; reviewers' names only when the
organisation credits them). Every public URL is a GET that writes nothing (the organisation's
first read on a fresh install seeds it, once).

Staff: the organisation page, admins only (403 for anyone else).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.contrib.syndication.views import Feed
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from factcheck.accounts.roles import Role, role_required, signed_in_user
from factcheck.claims.models import Verdict
from factcheck.claims.workflow.errors import TransitionNotAllowed
from factcheck.claims.workflow.selectors import claim_get_for_user
from factcheck.publishing import selectors, services
from factcheck.publishing.forms import FeedForm, OrganisationForm, WithdrawForm
from factcheck.publishing.models import Organisation
from factcheck.reports import selectors as report_selectors
from factcheck.reports.claimreview import BEST_RATING, RATING_MEANING, WORST_RATING, ReviewSource, claimreview_document, json_for_script

JSON_LD = "application/ld+json; charset=utf-8"
INDEX_PAGE_SIZE = 50
ATOM_ENTRIES = 50


def public_url(request: HttpRequest | None, organisation: Organisation, path: str) -> str:
    """`path` under the organisation's public base URL (this server's address when it has none)."""
    if organisation.public_base_url:
        return organisation.public_base_url.rstrip("/") + path
    if request is None:
        return ""
    return request.build_absolute_uri(path)


def _page_url(request: HttpRequest, organisation: Organisation, claim_id: int) -> str:
    return public_url(request, organisation, reverse("publishing:page", args=[claim_id]))


# --- Public pages --------------------------------------------------------------------------


@login_not_required
@require_GET
def factcheck_page(request: HttpRequest, claim_id: int) -> HttpResponse:
    """The published verdict as a reader sees it, its ClaimReview embedded as JSON-LD."""
    organisation = selectors.organisation_current()
    public = selectors.public_factcheck(claim_id=claim_id, organisation=organisation)
    source = public.source
    document = claimreview_document(source, page_url=_page_url(request, organisation, claim_id), organisation=organisation)
    context = {
        "organisation": organisation,
        "factcheck": public,
        "source": source,
        "document": document,
        # A withdrawn fact check keeps its page but no longer claims a review of anything.
        "json_ld": "" if source.withdrawn_at else json_for_script(document),
        "rating_label": organisation.rating_label(source.rating),
        "rating_meaning": RATING_MEANING[source.rating],
        "rating_value": organisation.rating_value(source.rating),
        "best_rating": BEST_RATING,
        "worst_rating": WORST_RATING,
        "corrections": [
            {"correction": item, "rating_label": organisation.rating_label(item.rating)} for item in public.corrections
        ],
        "canonical_url": document["url"],
    }
    return render(request, "publishing/factcheck.html", context)


@login_not_required
@require_GET
def factcheck_jsonld(request: HttpRequest, claim_id: int) -> HttpResponse:
    organisation = selectors.organisation_current()
    source = selectors.public_factcheck(claim_id=claim_id, organisation=organisation).source
    if source.withdrawn_at is not None:
        return HttpResponse(
            f"This fact check was withdrawn on {source.withdrawn_at:%Y-%m-%d}: {source.withdrawal_reason}", status=410,
            content_type="text/plain; charset=utf-8",
        )
    document = claimreview_document(source, page_url=_page_url(request, organisation, claim_id), organisation=organisation)
    return HttpResponse(json.dumps(document, ensure_ascii=False, indent=2), content_type=JSON_LD)


@login_not_required
@require_GET
def factcheck_index(request: HttpRequest) -> HttpResponse:
    """Every published fact check, the most recently approved first, 50 a page."""
    organisation = selectors.organisation_current()
    try:
        page = max(1, int(request.GET.get("page", "1")))
    except ValueError:
        return HttpResponseBadRequest("page must be a whole number from 1.", content_type="text/plain; charset=utf-8")
    total = selectors.published_count()
    sources = selectors.published_index(offset=(page - 1) * INDEX_PAGE_SIZE, limit=INDEX_PAGE_SIZE)
    items = [{"source": source, "rating_label": organisation.rating_label(source.rating)} for source in sources]
    context = {
        "organisation": organisation,
        "items": items,
        "page": page,
        "total": total,
        "previous_page": page - 1 if page > 1 else None,
        "next_page": page + 1 if page * INDEX_PAGE_SIZE < total else None,
        "canonical_url": public_url(request, organisation, reverse("publishing:index")),
    }
    return render(request, "publishing/index.html", context)


def _feed(request: HttpRequest, form: FeedForm, organisation: Organisation) -> Iterator[str]:
    yield '{\n"@context": "https://schema.org",\n"@graph": ['
    separator = "\n"
    for source in report_selectors.review_sources(since=form.cleaned_data["since"]):
        document = claimreview_document(source, page_url=_page_url(request, organisation, source.claim_id), organisation=organisation)
        del document["@context"]
        yield separator + json.dumps(document, ensure_ascii=False)
        separator = ",\n"
    yield "\n]}\n"


@login_not_required
@require_GET
def factcheck_feed(request: HttpRequest) -> HttpResponseBase:
    """Every published verdict as one JSON-LD document (@graph), streamed, oldest approval
    first; `?since=<ISO date/time>` gives those approved since then. Another desk's library
    import reads it (factcheck/factchecks/readers.py)."""
    form = FeedForm(request.GET)
    if not form.is_valid():
        errors = "\n".join(f"{name}: {error}" for name, found in form.errors.items() for error in found)
        return HttpResponseBadRequest(errors, content_type="text/plain; charset=utf-8")
    return StreamingHttpResponse(_feed(request, form, selectors.organisation_current()), content_type=JSON_LD)


class FactCheckAtomFeed(Feed):
    """The latest published fact checks as Atom: one entry per verdict, updated when corrected."""

    feed_type = Atom1Feed

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        self.request = request
        self.organisation = selectors.organisation_current()
        return super().__call__(request, *args, **kwargs)

    def title(self) -> str:
        return f"{self.organisation.name}: fact checks"

    def subtitle(self) -> str:
        return "Published fact checks, the latest first." + (" (A demo organisation.)" if self.organisation.is_demo else "")

    def link(self) -> str:
        return public_url(self.request, self.organisation, reverse("publishing:index"))

    def feed_url(self) -> str:
        return public_url(self.request, self.organisation, reverse("publishing:atom"))

    def author_name(self) -> str:
        return self.organisation.publisher

    def author_link(self) -> str:
        return self.organisation.url

    def items(self) -> list[ReviewSource]:
        return selectors.published_index(offset=0, limit=ATOM_ENTRIES)

    def item_title(self, item: ReviewSource) -> str:
        rating = "Withdrawn" if item.withdrawn_at else self.organisation.rating_label(item.rating)
        return f"{rating}: {item.claim_reviewed_text}"

    def item_description(self, item: ReviewSource) -> str:
        return item.headline

    def item_link(self, item: ReviewSource) -> str:
        return _page_url(self.request, self.organisation, item.claim_id)

    def item_guid(self, item: ReviewSource) -> str:
        return self.item_link(item)

    def item_pubdate(self, item: ReviewSource) -> Any:
        return item.first_published_at

    def item_updateddate(self, item: ReviewSource) -> Any:
        return item.approved_at


@login_not_required
@require_GET
def factcheck_atom(request: HttpRequest) -> HttpResponse:
    # A feed object per request: it keeps the request and the organisation on itself.
    return FactCheckAtomFeed()(request)


# --- Withdrawing (editors) -------------------------------------------------------------------


@require_POST
@role_required(Role.EDITOR)
def factcheck_withdraw(request: HttpRequest, claim_id: int) -> HttpResponse:
    claim = claim_get_for_user(user=request.user, pk=claim_id)
    form = WithdrawForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("reason: say why the fact check is withdrawn: readers see it.", content_type="text/plain; charset=utf-8")
    try:
        services.factcheck_withdraw(actor=signed_in_user(request), claim=claim, reason=form.cleaned_data["reason"])
    except (TransitionNotAllowed, ValidationError) as refused:
        return HttpResponse(" ".join(getattr(refused, "messages", [str(refused)])), status=409, content_type="text/plain; charset=utf-8")
    messages.success(request, "Withdrawn: the public page now says so, with your reason, and the ClaimReview feeds leave it out.")
    return redirect("claims:detail", pk=claim.pk)


# --- The organisation (admins) ---------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@role_required(Role.ADMIN)
def organisation_edit(request: HttpRequest) -> HttpResponse:
    organisation = selectors.organisation_current()
    form = OrganisationForm(request.POST or None, organisation=organisation)
    if request.method == "POST" and form.is_valid():
        try:
            services.organisation_update(actor=signed_in_user(request), **form.service_arguments())
        except ValidationError as exc:
            form.add_service_errors(exc)
        else:
            messages.success(request, "Organisation saved: published fact checks now carry it.")
            return redirect("publishing:organisation")
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "organisation": organisation, "ratings": Verdict.Rating.choices}
    return render(request, "publishing/organisation.html", context, status=status)
