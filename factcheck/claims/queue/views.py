"""The triage queue, its rows, saved views, inbox, my claims, approvals and bulk actions.

The queue works without JavaScript (plain forms and links, POST/redirect/GET); with htmx a
row action swaps its row, a filter change swaps the results and pushes the URL.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template import engines
from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_POST

from factcheck.accounts.roles import Role, has_role, role_required, signed_in_user
from factcheck.articles.models import Article
from factcheck.articles.selectors import MetadataKey, article_metadata_values, article_titles_matching
from factcheck.claims.models import BulkAction, Claim
from factcheck.claims.quantities import format_quantities
from factcheck.claims.queue import selectors, services
from factcheck.claims.queue.filters import META_SEPARATOR, QueueFilter, my_claims_querystring, queue_filter_from
from factcheck.claims.queue.forms import BulkForm, RowActionForm, SavedViewForm
from factcheck.claims.queue.services import BulkKind
from factcheck.claims.ranking.priority import priority_breakdown, priority_reasons
from factcheck.claims.workflow import selectors as workflow_selectors
from factcheck.claims.workflow import services as workflow_services
from factcheck.claims.workflow.errors import HeldByOther, WorkflowError
from factcheck.factchecks.selectors import CheckedBefore, When, claims_checked_before

# --- The triage queue ----------------------------------------------------------------------


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def queue_url(query: str = "") -> str:
    return reverse("claims:list") + (f"?{query}" if query else "")


def _queue_here(request: HttpRequest) -> str:
    """This queue URL without the empty fields a GET form sends (what the address bar shows)."""
    params = QueryDict(mutable=True)
    for name in request.GET:
        values = [value for value in request.GET.getlist(name) if value.strip()]
        if values:
            params.setlist(name, values)
    return queue_url(params.urlencode())


def view_suffix(view: str | None) -> str:
    """The query string that carries a view along the claim pages (and their forms)."""
    return "" if view is None else "?" + urlencode({"view": view})


def _next_url(request: HttpRequest) -> str:
    """Where a plain (non-htmx) POST goes back to: the queue page it came from."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return queue_url()


@dataclass(frozen=True)
class QueueAppearance:
    """One appearance of a row's cluster, as its expanded list shows it."""

    outlet: str
    article: str
    detail_url: str
    shown: bool  # the appearance the row itself is


def _cluster_label(size: int | None, outlets: int | None) -> str:
    """"3 outlets" (and the appearances when more than outlets); "" for a claim alone."""
    size, outlets = size or 1, outlets or 1
    if size < 2:
        return ""
    if outlets < 2:
        return f"{size:,} appearances"
    return f"{outlets:,} outlets" + (f" · {size:,} appearances" if size > outlets else "")


@dataclass(frozen=True)
class QueueRow:
    """A queue row's display values, prepared in Python: the row template renders 50 times a
    page, and filters and URL tags there cost more than the rest of the page together."""

    pk: int
    sentence: str
    status: str
    version: int
    tags: list[str]
    dismiss_reason: str
    priority: str
    why: str
    why_title: str
    type_label: str
    quantities: list[str]
    speaker: str
    outlet: str
    article: str
    cluster: str
    status_label: str
    reason: str
    assignee: str
    mine: bool
    can_check: bool
    can_dismiss: bool
    detail_url: str
    triage_url: str
    appearances_url: str  # what `cluster` asks for when opened (views.queue_row_appearances)
    score: str = ""
    checked_before: str = ""
    # The match shown was confirmed by a reviewer (not only suggested by the matcher).
    checked_before_confirmed: bool = False
    # A search's matched words: the sentence as (text, matched) pieces, printed escaped.
    highlight: tuple[tuple[str, bool], ...] = ()
    found_in_article: bool = False


def _number(value: Any) -> str:
    """Rounded half up, as the floatformat filter does (44.5 -> 45)."""
    try:
        return str(math.floor(float(value) + 0.5))
    except (TypeError, ValueError):
        return "?"


def truncate(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


def _label(choices: type[Claim.Status] | type[Claim.Type], value: str) -> str:
    try:
        return str(choices(value).label)
    except ValueError:
        return value


def _checked_before_line(found: CheckedBefore | None) -> str:
    """"publisher, rating, date" of the fact-check a row was matched to, and whether that was
    before the claim appeared when it is not plain ("same day as the article", "dates
    unknown": factchecks.selectors.checked_when); "" when none."""
    if found is None:
        return ""
    day = f"{found.date.day} {found.date:%b %Y}" if found.date else ""
    note = {When.SAME_DAY: "the article's day: maybe not before", When.UNKNOWN: "date unknown: maybe not before"}.get(found.when, "")
    return ", ".join(part for part in (found.publisher, found.rating, day, note) if part)


# Reversed once a page; each row fills in its id.
_PK = 999_999_999


def queue_rows(rows: list[dict[str, Any]], *, user: AbstractBaseUser | AnonymousUser) -> list[QueueRow]:
    detail_url, triage_url = reverse("claims:detail", args=[_PK]), reverse("claims:row_action", args=[_PK])
    appearances_url = reverse("claims:row_appearances", args=[_PK])
    allowed: dict[str, frozenset[str]] = {}  # the services' answer, once per status a page shows
    checked_before = claims_checked_before(row["id"] for row in rows)  # one query a page
    result = []
    for row in rows:
        parts, status, pk = priority_breakdown(row["priority_parts"], recency=row["recency"]), row["status"], row["id"]
        if status not in allowed:
            allowed[status] = workflow_services.claim_allowed_actions(claim_status=status, user=user)
        speaker, title = row["speaker"], row["speaker_title"]
        result.append(
            QueueRow(
                pk=pk, sentence=row["sentence"], status=status, version=row["version"], tags=row["tags"], dismiss_reason=row["dismiss_reason"],
                # The total the queue ranks by: the standing priority and recency.
                priority=f"{float(row['total']):.2f}" if row["total"] is not None else "?",
                # Routine and the rest at 0 are left out of the short line, never out of the title.
                why=" · ".join(f"{part.short} {_number(part.value)}" for part in parts if part.value or part.key == "checkworthiness"),
                why_title=priority_reasons(row["priority_parts"], parts, claim_id=pk),
                type_label=_label(Claim.Type, row["claim_type"]),
                quantities=format_quantities(row["quantities"]),
                speaker=f"{speaker}, {title}" if speaker and title else speaker or "no speaker",
                outlet=row["outlet_name"] or "Unknown outlet",
                article=truncate((row["article_heading"] or "").strip(), 60),
                cluster=_cluster_label(row["cluster_size"], row["cluster_outlets"]),
                status_label=_label(Claim.Status, status),
                reason=truncate(row["dismiss_reason"], 40) if status == Claim.Status.DISMISSED else "",
                assignee=f"@{row['assignee_username']}" if row["assignee_id"] else "unassigned",
                mine=row["assignee_id"] == user.pk,
                can_check="check" in allowed[status],
                can_dismiss="dismiss" in allowed[status],
                detail_url=detail_url.replace(str(_PK), str(pk)),
                triage_url=triage_url.replace(str(_PK), str(pk)),
                appearances_url=appearances_url.replace(str(_PK), str(pk)),
                # The model's score on the filter bar's scale (Score from/to, 0-1).
                score=f"{float(row['score']):.2f}" if row["score"] is not None else "",
                checked_before=_checked_before_line(checked_before.get(pk)),
                checked_before_confirmed=pk in checked_before and checked_before[pk].confirmed,
                highlight=tuple(row.get("highlight") or ()),
                found_in_article=row.get("found_in_article", False),
            )
        )
    return result


def render_queue_rows(request: HttpRequest, rows: list[QueueRow], *, here: str, row_error: str = "", held: bool = False) -> SafeString:
    """The rows' markup, from the Jinja2 engine (see templates/jinja2/claims/queue_rows.html)."""
    template = engines["jinja2"].get_template("claims/queue_rows.html")
    view = queue_filter_from(QueryDict(urlsplit(here).query)).querystring()
    context = {"rows": rows, "here": here, "view_suffix": view_suffix(view), "row_error": row_error, "held": held, "csrf_token": get_token(request)}
    # The Jinja2 template autoescapes every value it prints.
    return mark_safe(template.render(context))  # noqa: S308


def _assignable() -> list[tuple[int, str]]:
    return list(workflow_selectors.assignable_users().values_list("id", "username"))


@require_GET
@role_required(Role.REVIEWER)
def claim_list(request: HttpRequest) -> HttpResponse:
    """The queue page, or with htmx only its results; Jinja2 templates (templates/jinja2/claims/)."""
    queue_filter = queue_filter_from(request.GET)
    page = selectors.queue_page(
        user=request.user, values=queue_filter.values, cursor=request.GET.get("after"), page_size=settings.FACTCHECK_QUEUE_PAGE_SIZE
    )
    is_editor = has_role(request.user, Role.EDITOR)
    query = queue_filter.querystring()
    context: dict[str, Any] = {
        "page": page,
        "rows": queue_rows(page.rows, user=request.user),
        "is_my_claims": query == my_claims_querystring(),
        "filter": queue_filter,
        "query": query,
        "here": _queue_here(request),
        "view_suffix": view_suffix(queue_filter.querystring()),
        "queue_url": queue_url(),
        "bulk_actions": BulkKind.choices,
        "bulk_statuses": BulkForm.STATUSES,
    }
    if _is_htmx(request) and request.headers.get("HX-Target") == "queue-results":
        # Editors assign claims in bulk to whoever may hold one.
        context["users"] = _assignable() if is_editor else []
        views = [(view.pk, view.name, view.query) for view in selectors.saved_views_for(user=signed_in_user(request))]
        context["saved_views"] = saved_views_marked(views, current=context["query"])
        response = render(request, "claims/queue_results.html", context, using="jinja2")
        response["HX-Push-Url"] = context["here"]
        return response
    choices = selectors.queue_choices(user=request.user)
    context.update(
        outlets=choices.outlets,
        assignees=choices.assignees,
        saved_views=saved_views_marked(choices.saved_views, current=context["query"]),
        metadata=metadata_filter_fields(article_metadata_values(newest_article=choices.newest_article), chosen=queue_filter.values.get("meta") or []),
        article_named=article_title_of(queue_filter.values.get("article")),
        without_article_url=queue_url(QueueFilter(form=queue_filter.form, values={**queue_filter.values, "article": None}).querystring()),
        titles_url=reverse("claims:article_titles"),
    )
    context["users"] = choices.assignees if is_editor else []
    return render(request, "claims/queue.html", context, using="jinja2")


@require_GET
@role_required(Role.REVIEWER)
def claim_count(request: HttpRequest) -> HttpResponse:
    """"N claims" for the queue's filters (the same query string): asked for by the queue page
    once it has shown its rows, so that a page never waits for an exact count of every
    matching claim (selectors.queue_count)."""
    queue_filter = queue_filter_from(request.GET)
    counts = selectors.queue_counts(user=request.user, values=queue_filter.values)
    context = {
        "count": counts.claims,
        "appearances": counts.appearances,
        "search": queue_filter.values.get("q") or "",
        "in_article": queue_filter.values.get("in_article") == "yes",
        "is_my_claims": queue_filter.querystring() == my_claims_querystring(),
        "count_url": reverse("claims:count") + (f"?{queue_filter.querystring()}" if queue_filter.querystring() else ""),
    }
    return render(request, "claims/queue_count.html", context, using="jinja2")


# The appearances an opened row lists (the claim page lists them all).
ROW_APPEARANCES_SHOWN = 8


@require_GET
@role_required(Role.REVIEWER)
def queue_row_appearances(request: HttpRequest, pk: int) -> HttpResponse:
    """What a queue row's "3 outlets" expands to, asked for when the reviewer opens it: the
    cluster's appearances best-ranked first, each a link to its claim page in the same view
    (`view`), the row's own marked; "and N more" past ROW_APPEARANCES_SHOWN."""
    found, size = selectors.row_appearances(claim_id=pk, limit=ROW_APPEARANCES_SHOWN)
    if not found:
        raise Http404("No such claim.")
    suffix = view_suffix(queue_filter_from(QueryDict(request.GET.get("view", ""))).querystring())
    detail_url = reverse("claims:detail", args=[_PK])
    appearances = [
        QueueAppearance(
            outlet=appearance.outlet_name or "Unknown outlet",
            article=truncate(appearance.article_heading.strip(), 60),
            detail_url=detail_url.replace(str(_PK), str(appearance.pk)) + suffix,
            shown=appearance.pk == pk,
        )
        for appearance in found
    ]
    context = {"appearances": appearances, "more": max(0, size - len(found)), "detail_url": detail_url.replace(str(_PK), str(pk)) + suffix}
    return render(request, "claims/queue_row_appearances.html", context, using="jinja2")


@dataclass(frozen=True)
class SavedViewLink:
    pk: int
    name: str
    is_current: bool


def saved_views_marked(views: list[tuple[int, str, str]], *, current: str) -> list[SavedViewLink]:
    """The user's saved views, the one whose filters are the page's marked: both compared in
    canonical form, so a view saved before a filter was added still matches its own page."""
    return [SavedViewLink(pk, name, queue_filter_from(QueryDict(query)).querystring() == current) for pk, name, query in views]


@dataclass(frozen=True)
class MetadataSelect:
    """One metadata key as a select of the filter bar: options are (meta value, label, selected)."""

    key: str
    options: list[tuple[str, str, bool]]


@dataclass(frozen=True)
class MetadataFields:
    selects: list[MetadataSelect]
    # Chosen pairs no select shows (a key with too many values to offer, a second value of
    # one key): kept as hidden fields, so changing another filter does not drop them.
    hidden: list[str]


def metadata_filter_fields(keys: list[MetadataKey], *, chosen: list[str]) -> MetadataFields:
    remaining = list(chosen)
    selects = []
    for entry in keys:
        pairs = [f"{entry.key}{META_SEPARATOR}{item.value}" for item in entry.values]
        selected = next((pair for pair in remaining if pair in pairs), None)
        if selected is not None:
            remaining.remove(selected)
        options = [(pair, f"{item.value} ({item.articles:,})", pair == selected) for pair, item in zip(pairs, entry.values, strict=True)]
        selects.append(MetadataSelect(key=entry.key, options=options))
    return MetadataFields(selects=selects, hidden=remaining)


def article_title_of(pk: int | None) -> str:
    """The heading of the article an `article` id (an older link's filter) names."""
    if pk is None:
        return ""
    article = Article.objects.filter(pk=pk).only("title", "text").first()
    return article.display_title if article is not None else f"article #{pk} (not found)"


@require_GET
@role_required(Role.REVIEWER)
def my_claims(request: HttpRequest) -> HttpResponse:
    """"My claims": the queue filtered to the claims assigned to me that I have not finished."""
    return redirect(queue_url(my_claims_querystring()))


@require_GET
@role_required(Role.REVIEWER)
def inbox(request: HttpRequest) -> HttpResponse:
    """"My work": the claims assigned to me still to do and the verdicts sent back to me, for
    every reviewer role; an editor sees how many verdicts wait for their approval as well."""
    work = selectors.inbox_for(user=request.user)
    awaiting = selectors.verdicts_awaiting_approval(user=request.user) if has_role(request.user, Role.EDITOR) else None
    return render(request, "claims/inbox.html", {"inbox": work, "awaiting": awaiting, "mine_url": queue_url(my_claims_querystring())}, using="jinja2")


@require_GET
@role_required(Role.EDITOR)
def approvals(request: HttpRequest) -> HttpResponse:
    """The editor's inbox: verdicts awaiting approval that this editor may approve (none they
    wrote any of), longest waiting first."""
    verdicts = selectors.verdicts_awaiting_approval(user=request.user)
    return render(request, "claims/approvals.html", {"verdicts": verdicts}, using="jinja2")


@require_GET
@role_required(Role.REVIEWER)
def article_titles(request: HttpRequest) -> HttpResponse:
    """The article filter's suggestions: <option>s for its <datalist> (htmx swaps them in)."""
    titles = article_titles_matching(text=request.GET.get("article_title", "")[:200])
    return HttpResponse(format_html_join("", '<option value="{}"></option>', ((title,) for title in titles)))


@require_POST
@role_required(Role.REVIEWER)
def queue_row_action(request: HttpRequest, pk: int) -> HttpResponse:
    """A row's action. htmx gets the row back (409 when someone else got there first, 422
    for a missing reason, the reason shown in the row); a plain POST goes back to the queue."""
    claim = workflow_selectors.claim_get_for_user(user=request.user, pk=pk)
    form = RowActionForm(request.POST)
    error, status, held = "", 200, False
    if not form.is_valid():
        error, status = " ".join(str(message) for messages_ in form.errors.values() for message in messages_), 422
    else:
        data, actor = form.cleaned_data, signed_in_user(request)
        common = {"claim": claim, "actor": actor, "expected_version": data["version"], "force": data["force"]}
        try:
            if data["action"] == "assign_me":
                workflow_services.claim_assign(assignee=actor, **common)
            elif data["action"] == "release":
                workflow_services.claim_assign(assignee=None, **common)
            elif data["action"] == "check":
                workflow_services.claim_mark_check(**common)
            else:
                workflow_services.claim_dismiss(reason=data["reason"], **common)
        except HeldByOther as refused:
            error, status, held = refused.message, 409, True
        except WorkflowError as refused:
            error, status = refused.message, 409
        except ValidationError as refused:
            error, status = " ".join(refused.messages), 422
    if not _is_htmx(request):
        if error:
            messages.error(request, f"“{truncate(claim.sentence, 60)}”: {error}")
        return redirect(_next_url(request))
    row = queue_rows([selectors.queue_row(user=request.user, pk=pk)], user=request.user)[0]
    markup = render_queue_rows(request, [row], here=_next_url(request), row_error=error, held=held)
    if error:
        return HttpResponse(markup, status=status)
    # The counts move with the action: the navigation's sent out of band (in a <template>, as
    # htmx reads out-of-band parts of a table row's answer), the queue's asked for again.
    counts = engines["jinja2"].get_template("claims/work_counts.html").render(
        {"work_counts": selectors.work_counts_cached(user=request.user), "oob": True}, request=request
    )
    response = HttpResponse(markup + mark_safe(f"<template>{counts}</template>"), status=status)  # noqa: S308 - rendered, escaped
    response["HX-Trigger"] = "claims-changed"
    return response


@require_POST
@role_required(Role.REVIEWER)
def saved_view_create(request: HttpRequest) -> HttpResponse:
    form = SavedViewForm(request.POST)
    if not form.is_valid():
        messages.error(request, "A saved view needs a name (up to 80 characters).")
        return redirect(queue_url(request.POST.get("query", "")))
    # Stored canonical: only the filters that are valid, in one order.
    query = queue_filter_from(QueryDict(form.cleaned_data["query"])).querystring()
    view = services.saved_view_create(user=signed_in_user(request), name=form.cleaned_data["name"], query=query)
    messages.success(request, f"Saved the view “{view.name}”.")
    return redirect(queue_url(view.query))


@require_GET
@role_required(Role.REVIEWER)
def saved_view_open(request: HttpRequest, pk: int) -> HttpResponse:
    view = selectors.saved_view_get_for_user(user=signed_in_user(request), pk=pk)
    return redirect(queue_url(view.query))


@require_POST
@role_required(Role.REVIEWER)
def saved_view_delete(request: HttpRequest, pk: int) -> HttpResponse:
    view = selectors.saved_view_get_for_user(user=signed_in_user(request), pk=pk)
    services.saved_view_delete(user=signed_in_user(request), view=view)
    messages.success(request, f"Deleted the view “{view.name}”.")
    return redirect(_next_url(request))


def _bulk_claim_ids(request: HttpRequest, form: BulkForm) -> list[int]:
    limit = settings.FACTCHECK_BULK_MAX_CLAIMS + 1
    if form.cleaned_data["scope"] == "selected":
        return selectors.claims_existing_ids(ids=form.cleaned_data["ids"][:limit])
    values = queue_filter_from(QueryDict(form.cleaned_data["filters"])).values
    return selectors.queue_claim_ids(user=request.user, values=values, limit=limit)


@require_POST
@role_required(Role.REVIEWER)
def bulk(request: HttpRequest) -> HttpResponse:
    """First POST: count the claims and ask; the confirmed POST runs it (inline when small)."""
    form = BulkForm(request.POST)
    filters = request.POST.get("filters", "")
    if not form.is_valid():
        return render(request, "claims/bulk_confirm.html", {"form": form, "filters": filters, "count": None}, status=400)
    actor = signed_in_user(request)
    params = form.params(actor_id=actor.pk)
    action = form.cleaned_data["action"]
    services.bulk_check_allowed(actor=actor, action=action, params=params)
    assignee = None
    if action == BulkKind.ASSIGN:
        assignee = get_user_model().objects.filter(pk=params["assignee_id"]).first()
        if assignee is None or not has_role(assignee, Role.REVIEWER):
            raise PermissionDenied("Claims are assigned to people with a role.")
    claim_ids = _bulk_claim_ids(request, form)
    too_many = len(claim_ids) > settings.FACTCHECK_BULK_MAX_CLAIMS
    context = {
        "form": form, "filters": filters, "count": len(claim_ids), "too_many": too_many, "max": settings.FACTCHECK_BULK_MAX_CLAIMS,
        "params": params, "assignee": assignee, "action_label": BulkKind(action).label, "ids": form.cleaned_data["ids"],
        "inline_max": settings.FACTCHECK_BULK_INLINE_MAX,
    }
    if not form.cleaned_data["confirm"] or too_many or not claim_ids:
        return render(request, "claims/bulk_confirm.html", context, status=400 if too_many else 200)
    if len(claim_ids) <= settings.FACTCHECK_BULK_INLINE_MAX:
        outcome = services.bulk_apply(actor=actor, action=action, params=params, claim_ids=claim_ids)
        messages.success(
            request,
            f"{BulkKind(action).label}: {outcome.done:,} claims done, {outcome.skipped:,} skipped"
            " (not allowed in their status, or held by someone else).",
        )
        return redirect(queue_url(filters))
    bulk_action = services.bulk_action_create(user=actor, action=action, params=params, claim_ids=claim_ids)
    return redirect("claims:bulk_detail", pk=bulk_action.pk)


@require_GET
@role_required(Role.REVIEWER)
def bulk_detail(request: HttpRequest, pk: int) -> HttpResponse:
    bulk_action = selectors.bulk_action_get_for_user(user=signed_in_user(request), pk=pk)
    finished = bulk_action.status in (BulkAction.Status.DONE, BulkAction.Status.FAILED)
    processed = bulk_action.done + bulk_action.skipped
    context = {
        "bulk": bulk_action, "finished": finished, "processed": processed,
        "percent": 100 if finished else int(100 * processed / bulk_action.total) if bulk_action.total else 0,
        "label": BulkKind(bulk_action.action).label if bulk_action.action in BulkKind.values else bulk_action.action,
    }
    template = "claims/_bulk_progress.html" if _is_htmx(request) else "claims/bulk_detail.html"
    return render(request, template, context)
