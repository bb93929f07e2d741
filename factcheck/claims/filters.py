"""The queue's filters and order: one form that reads them from a query string, one condition
per filter (claim_filter_q, search_for) that filters querysets and, compiled, the queue page's
own query; the queue order (standing priority plus recency) and its cursor.

The triage queue, the CSV export and the API all take the same parameters, so a view shared
by URL means the same rows everywhere:

    status, type        repeatable (?status=new&status=check)
    speaker             case-insensitive substring of the speaker's name
    outlet, article     ids
    score_min/score_max check-worthiness between 0 and 1
    assignee            "mine", "unassigned" or a user id
    date_from/date_to   the article's publication date (its import date when it has none)
    has_number          "yes" or "no"
    checked_before      "yes" or "no": a live (not rejected) match to a library fact-check
    tag                 one tag
    q                   full-text search (web-search syntax: "quoted phrase", -not, or)
                        over the claim's sentence and speaker and its article's title and text
"""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.postgres.search import SearchQuery
from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connection
from django.db.models import Exists, F, FloatField, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.http import QueryDict

from factcheck.articles.models import Article
from factcheck.claims.models import Claim
from factcheck.factchecks.models import ClaimMatch

FILTER_FIELDS = (
    "status",
    "type",
    "speaker",
    "outlet",
    "article",
    "score_min",
    "score_max",
    "assignee",
    "date_from",
    "date_to",
    "has_number",
    "checked_before",
    "tag",
    "q",
)


class QueueFilterForm(forms.Form):
    status = forms.MultipleChoiceField(choices=Claim.Status.choices, required=False)
    type = forms.MultipleChoiceField(choices=Claim.Type.choices, required=False)
    speaker = forms.CharField(required=False, max_length=300)
    outlet = forms.IntegerField(required=False, min_value=1)
    article = forms.IntegerField(required=False, min_value=1)
    score_min = forms.FloatField(required=False, min_value=0, max_value=1)
    score_max = forms.FloatField(required=False, min_value=0, max_value=1)
    assignee = forms.RegexField(
        required=False,
        regex=r"^(mine|unassigned|[0-9]+)$",
        error_messages={"invalid": "Assignee must be 'mine', 'unassigned' or a user id."},
    )
    date_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    has_number = forms.ChoiceField(required=False, choices=[("", "Any"), ("yes", "With a number"), ("no", "Without")])
    checked_before = forms.ChoiceField(required=False, choices=[("", "Any"), ("yes", "Checked before"), ("no", "Not checked before")])
    tag = forms.CharField(required=False, max_length=40)
    q = forms.CharField(required=False, max_length=500, label="Search")

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        low, high = data.get("score_min"), data.get("score_max")
        if low is not None and high is not None and low > high:
            self.add_error("score_max", "The highest score must not be below the lowest.")
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", "The end date must not be before the start date.")
        return data


@dataclass(frozen=True)
class QueueFilter:
    form: QueueFilterForm
    # Only the valid parameters; an invalid one is reported by the form and ignored.
    values: dict[str, Any]

    @property
    def is_active(self) -> bool:
        return any(value not in (None, "", []) for value in self.values.values())

    def querystring(self) -> str:
        """The canonical query string of the valid filters (what a saved view stores)."""
        query = QueryDict(mutable=True)
        for name in FILTER_FIELDS:
            value = self.values.get(name)
            if value is None or value in ("", []):
                continue
            if isinstance(value, list):
                query.setlist(name, value)
            else:
                query[name] = value.isoformat() if hasattr(value, "isoformat") else str(value)
        return query.urlencode()


def queue_filter_from(params: QueryDict) -> QueueFilter:
    form = QueueFilterForm(params)
    form.is_valid()
    values = {name: value for name, value in form.cleaned_data.items() if name not in form.errors}
    return QueueFilter(form=form, values=values)


# --- The filters, each defined once ---------------------------------------------------------
#
# Each filter is a Q over the claims table's own columns (an article's outlet or date is a
# subquery on the articles, not a join), so the same Q both filters a queryset (the API, the
# exports, the reports, the bulk actions) and, compiled by Django into SQL (filter_sql), goes
# into the queue page's query, which must shape its own plan (queue_page.sql).


def _article_ids(condition: Q) -> Q:
    return Q(article_id__in=Article.objects.filter(condition).values("id"))


def _published_on_or(lookup: str, day: Any) -> Q:
    """The article's publication date `lookup` (gte, lte) the day; its import date when it has none."""
    return Q(**{f"published_at__date__{lookup}": day}) | Q(published_at__isnull=True, **{f"created_at__date__{lookup}": day})


def _checked_before() -> Q:
    """Claims with a live match: what factchecks.selectors.claims_checked_before shows (a
    rejected match never counts)."""
    return Q(id__in=ClaimMatch.objects.exclude(status=ClaimMatch.Status.REJECTED).values("claim_id"))


def claim_filter_q(*, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser) -> Q:
    """Every valid filter value (QueueFilter.values) but the search, as one condition."""
    condition = Q()
    if statuses := values.get("status"):
        condition &= Q(status__in=statuses)
    if types := values.get("type"):
        condition &= Q(claim_type__in=types)
    if speaker := values.get("speaker"):
        condition &= Q(speaker__icontains=speaker.strip())
    if outlet := values.get("outlet"):
        condition &= _article_ids(Q(outlet_id=outlet))
    if article := values.get("article"):
        condition &= Q(article_id=article)
    if (low := values.get("score_min")) is not None:
        condition &= Q(score__gte=low)
    if (high := values.get("score_max")) is not None:
        condition &= Q(score__lte=high)
    assignee = values.get("assignee")
    if assignee == "mine":
        condition &= Q(assignee_id=user.pk)
    elif assignee == "unassigned":
        condition &= Q(assignee__isnull=True)
    elif assignee:
        condition &= Q(assignee_id=int(assignee))
    if start := values.get("date_from"):
        condition &= _article_ids(_published_on_or("gte", start))
    if end := values.get("date_to"):
        condition &= _article_ids(_published_on_or("lte", end))
    if values.get("has_number") == "yes":
        condition &= ~Q(quantities=[])
    elif values.get("has_number") == "no":
        condition &= Q(quantities=[])
    if values.get("checked_before") == "yes":
        condition &= _checked_before()
    elif values.get("checked_before") == "no":
        condition &= ~_checked_before()
    if tag := values.get("tag"):
        condition &= Q(tags__contains=[tag.strip()])
    return condition


def search_query(text: str) -> SearchQuery:
    return SearchQuery(text.strip(), search_type="websearch", config="english")


@dataclass(frozen=True)
class Search:
    """The q filter: a claim matches by its own sentence and speaker, or by its article's
    title and text. Kept as two conditions, not one OR: each has its own index (the claims'
    and the articles' search vectors), and the queue page plans them apart."""

    in_sentence: Q
    in_article: Q

    @property
    def either(self) -> Q:
        return self.in_sentence | self.in_article


def search_for(values: dict[str, Any]) -> Search | None:
    if not (text := (values.get("q") or "").strip()):
        return None
    query = search_query(text)
    return Search(in_sentence=Q(search=query), in_article=_article_ids(Q(search=query)))


def claims_filtered(claims: QuerySet[Claim], *, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser) -> QuerySet[Claim]:
    """Apply valid filter values (QueueFilter.values) to a claim queryset."""
    claims = claims.filter(claim_filter_q(values=values, user=user))
    if (search := search_for(values)) is not None:
        claims = claims.filter(search.either)
    return claims


@dataclass(frozen=True)
class FilterSQL:
    """The filters as SQL over the `claims` table (compiled from claim_filter_q and
    search_for by Django, so they cannot mean anything else): `where` for every filter but
    the search, and the search's two conditions (TRUE and FALSE without a search)."""

    where: str
    where_params: list[Any]
    in_sentence: str
    in_sentence_params: list[Any]
    in_article: str
    in_article_params: list[Any]
    # No filter and no search: every claim matches.
    matches_all: bool = False
    # first_in_cluster over the filters and the search (TRUE: every appearance is a row).
    first: str = "TRUE"
    first_params: list[Any] = field(default_factory=list)


def _compiled(condition: Q) -> tuple[str, list[Any]]:
    query = Claim.objects.filter(condition).query
    try:
        sql, params = query.get_compiler(connection=connection).compile(query.where)
    except EmptyResultSet:
        return "FALSE", []
    except FullResultSet:
        return "TRUE", []
    return sql, list(params)


def first_in_cluster(condition: Q) -> Q:
    """The claims that no appearance of their cluster matching `condition` outranks in
    standing order (priority, then id, as claim_queue_order_idx): the one row per cluster the
    queue shows. A cluster is one claim (status, assignee, tags, notes and verdict are the
    cluster's), so its row is its best-ranked appearance among those the filters match: an
    outlet or article filter shows the cluster through the appearance it matched. A claim in
    no cluster is its own row; one alone in its cluster costs one probe of
    claim_cluster_key_idx."""
    better = Claim.objects.filter(condition, cluster_key=OuterRef("cluster_key")).filter(
        Q(priority__gt=OuterRef("priority")) | Q(priority=OuterRef("priority"), id__gt=OuterRef("id"))
    )
    return Q(cluster_key="") | Q(~Exists(better))


def filter_sql(*, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser, one_per_cluster: bool = True) -> FilterSQL:
    """The filters compiled; `one_per_cluster` (the queue) adds first_in_cluster as `first`;
    without it (the API's claim lists) every matching appearance is a row."""
    search = search_for(values)
    condition = claim_filter_q(values=values, user=user)
    matches_all = search is None and not condition
    first, first_params = _compiled(first_in_cluster(condition & search.either if search else condition)) if one_per_cluster else ("TRUE", [])
    where, where_params = _compiled(condition)
    in_sentence, in_sentence_params = _compiled(search.in_sentence) if search else ("TRUE", [])
    in_article, in_article_params = _compiled(search.in_article) if search else ("FALSE", [])
    return FilterSQL(where, where_params, in_sentence, in_sentence_params, in_article, in_article_params, matches_all, first, first_params)


# --- The queue order: total DESC, id DESC ----------------------------------------------------
#
# A claim's total is its standing priority (claims.priority, stored) plus its recency points,
# counted back from the newest claim stored with the current weights, computed as the queue is
# read: claim_recency_points (migration 0015) over claim_queue_ranking() (migration 0016). The
# queue page's query (queue_page.sql) joins the ranking so that PostgreSQL inlines the function
# over a range of the index; the ORM readers below (a claim page, an API page's rows, an
# export) read it through subqueries, once per statement.
RECENCY_SQL = (
    'claim_recency_points("claims"."seen_at", (SELECT newest FROM claim_queue_ranking()),'
    " (SELECT recency FROM claim_queue_ranking()), (SELECT half_life_days FROM claim_queue_ranking()))"
)


def recency_points() -> RawSQL:
    """A claim's recency points, as an ORM expression over the claims table."""
    return RawSQL(RECENCY_SQL, (), output_field=FloatField())


def with_recency(claims: QuerySet[Any]) -> QuerySet[Any]:
    """Claims annotated with `recency` and `total` (standing priority + recency)."""
    return claims.annotate(recency=recency_points()).annotate(total=F("priority") + F("recency"))


def encode_cursor(total: float, pk: int) -> str:
    raw = f"{total!r}:{pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, int] | None:
    """(total, id) from a cursor, or None when it is malformed or its total is not a finite
    number (then the queue starts over)."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        text, pk = raw.split(":")
        total = float(text)
        return (total, int(pk)) if math.isfinite(total) else None
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
