"""The queue's filters: one form that reads them from a query string, one function that applies them.

The triage queue, the CSV export and the API all take the same parameters, so a view shared
by URL means the same rows everywhere:

    status, type        repeatable (?status=new&status=check)
    speaker             case-insensitive substring of the speaker's name
    outlet, article     ids
    score_min/score_max check-worthiness between 0 and 1
    assignee            "mine", "unassigned" or a user id
    date_from/date_to   the article's publication date (its import date when it has none)
    has_number          "yes" or "no"
    tag                 one tag
    q                   full-text search (web-search syntax: "quoted phrase", -not, or)
                        over the claim's sentence and speaker and its article's title and text
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import BooleanField, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.http import QueryDict
from django.utils import timezone

from factcheck.articles.models import Article
from factcheck.claims.models import Claim

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
    tag = forms.CharField(required=False, max_length=40)
    q = forms.CharField(required=False, max_length=500, label="Search")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
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
            if value in (None, "", []):
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


def claims_filtered(claims: QuerySet[Claim], *, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser) -> QuerySet[Claim]:
    """Apply valid filter values (QueueFilter.values) to a claim queryset."""
    if statuses := values.get("status"):
        claims = claims.filter(status__in=statuses)
    if types := values.get("type"):
        claims = claims.filter(claim_type__in=types)
    if speaker := values.get("speaker"):
        claims = claims.filter(speaker__icontains=speaker.strip())
    if outlet := values.get("outlet"):
        claims = claims.filter(article__outlet_id=outlet)
    if article := values.get("article"):
        claims = claims.filter(article_id=article)
    if (low := values.get("score_min")) is not None:
        claims = claims.filter(score__gte=low)
    if (high := values.get("score_max")) is not None:
        claims = claims.filter(score__lte=high)
    assignee = values.get("assignee")
    if assignee == "mine":
        claims = claims.filter(assignee_id=user.pk)
    elif assignee == "unassigned":
        claims = claims.filter(assignee__isnull=True)
    elif assignee:
        claims = claims.filter(assignee_id=int(assignee))
    if start := values.get("date_from"):
        claims = claims.filter(
            Q(article__published_at__date__gte=start) | Q(article__published_at__isnull=True, article__created_at__date__gte=start)
        )
    if end := values.get("date_to"):
        claims = claims.filter(
            Q(article__published_at__date__lte=end) | Q(article__published_at__isnull=True, article__created_at__date__lte=end)
        )
    if values.get("has_number") == "yes":
        claims = claims.exclude(quantities=[])
    elif values.get("has_number") == "no":
        claims = claims.filter(quantities=[])
    if tag := values.get("tag"):
        claims = claims.filter(tags__contains=[tag.strip()])
    if text := (values.get("q") or "").strip():
        query = search_query(text)
        # Two indexed lookups joined by id rather than one OR across the join, which
        # PostgreSQL could only answer by scanning every claim.
        in_sentence = Claim.objects.filter(search=query).order_by().values("id")
        in_article = Claim.objects.filter(article__in=Article.objects.filter(search=query).values("id")).order_by().values("id")
        claims = claims.filter(id__in=in_sentence.union(in_article))
    return claims


@dataclass(frozen=True)
class FilterSQL:
    """claims_filtered's conditions written out in SQL over `claims c` (and `articles a` when
    `needs_article`), for the queue page's own query (selectors.queue_page): building the
    same query with the ORM cost four times what PostgreSQL spends answering it. The q filter
    is not here: search pages are shaped differently (see search_page_ids).

    The two must mean the same; tests/web/test_queue.py compares them filter by filter."""

    conditions: list[str]
    params: list[Any]
    needs_article: bool


def claims_filtered_sql(*, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser) -> FilterSQL:
    conditions: list[str] = []
    params: list[Any] = []
    needs_article = False
    if statuses := values.get("status"):
        conditions.append("c.status = ANY(%s)")
        params.append(list(statuses))
    if types := values.get("type"):
        conditions.append("c.claim_type = ANY(%s)")
        params.append(list(types))
    if speaker := values.get("speaker"):
        # Django's icontains: the value's own %, _ and \ match literally.
        conditions.append("UPPER(c.speaker::text) LIKE UPPER(%s)")
        params.append(f"%{connection.ops.prep_for_like_query(speaker.strip())}%")
    if outlet := values.get("outlet"):
        conditions.append("a.outlet_id = %s")
        params.append(outlet)
        needs_article = True
    if article := values.get("article"):
        conditions.append("c.article_id = %s")
        params.append(article)
    if (low := values.get("score_min")) is not None:
        conditions.append("c.score >= %s")
        params.append(low)
    if (high := values.get("score_max")) is not None:
        conditions.append("c.score <= %s")
        params.append(high)
    assignee = values.get("assignee")
    if assignee == "mine":
        conditions.append("c.assignee_id = %s")
        params.append(user.pk)
    elif assignee == "unassigned":
        conditions.append("c.assignee_id IS NULL")
    elif assignee:
        conditions.append("c.assignee_id = %s")
        params.append(int(assignee))
    # Dates are compared in the current time zone, as the ORM's __date does.
    zone = timezone.get_current_timezone_name()
    for name, operator in (("date_from", ">="), ("date_to", "<=")):
        if day := values.get(name):
            conditions.append(
                f"((a.published_at AT TIME ZONE %s)::date {operator} %s"
                f" OR (a.published_at IS NULL AND (a.created_at AT TIME ZONE %s)::date {operator} %s))"
            )
            params += [zone, day, zone, day]
            needs_article = True
    if values.get("has_number") == "yes":
        conditions.append("c.quantities <> '[]'::jsonb")
    elif values.get("has_number") == "no":
        conditions.append("c.quantities = '[]'::jsonb")
    if tag := values.get("tag"):
        conditions.append("c.tags @> ARRAY[%s]::varchar(40)[]")
        params.append(tag.strip())
    return FilterSQL(conditions=conditions, params=params, needs_article=needs_article)


def search_query(text: str) -> SearchQuery:
    return SearchQuery(text.strip(), search_type="websearch", config="english")


def search_page_ids(*, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser, cursor: tuple[float, int] | None, limit: int) -> list[int]:
    """The ids of one page of claims when the filters include a search, in queue order (the
    API's claim pages; the queue page writes the same shape in SQL, selectors.QUEUE_SEARCH_PAGE_SQL).

    Every other filter and the cursor are applied inside each of the two indexed lookups
    (sentence matches, article matches), and only (id, priority) pairs are unioned, sorted and
    cut to the page. Joining the union back to the claims before sorting, as claims_filtered
    does, made PostgreSQL fetch and join every matching claim's whole row: 180 ms for a
    common word on 200,000 claims, against a few ms for this.

    Each lookup is itself ordered and cut to the page (the page's first `limit` rows are
    among the first `limit` of one lookup or the other), so PostgreSQL plans each on its own:
    a common word walks the queue-order index until the page is full (2.6 ms for 5,700
    sentence matches, against 22 ms fetching and sorting every match; 1-2 ms instead of
    ~110 ms for a word in 500 articles' text), a rare one sorts its few matches."""
    query = search_query(values["q"])
    others = claims_after(claims_filtered(Claim.objects.all(), values={**values, "q": ""}, user=user), cursor)
    in_sentence = others.filter(search=query).values("id", "priority")[:limit]
    in_article = others.filter(article__in=Article.objects.filter(search=query).values("id")).values("id", "priority")[:limit]
    return [row["id"] for row in in_sentence.union(in_article).order_by("-priority", "-id")[:limit]]


# --- keyset pagination over (priority DESC, id DESC) -------------------------------------


def encode_cursor(claim: Claim) -> str:
    raw = f"{claim.priority!r}:{claim.pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, int] | None:
    """(priority, id) from a cursor, or None when it is malformed (then the queue starts over)."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        priority, pk = raw.split(":")
        return float(priority), int(pk)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None


def claims_after(claims: QuerySet[Claim], cursor: tuple[float, int] | None) -> QuerySet[Claim]:
    """The queue order from just after `cursor`: one index range scan however deep the page."""
    claims = claims.order_by("-priority", "-id")
    if cursor is None:
        return claims
    priority, pk = cursor
    after = RawSQL('("claims"."priority", "claims"."id") < (%s, %s)', (priority, pk), output_field=BooleanField())
    return claims.filter(after)
