"""The queue's filters and order: one form that reads them from a query string, one condition
per filter (claim_filter_q, search_for) that filters querysets and, compiled, the queue page's
own query; the queue order (standing priority plus recency) and its cursor.

The triage queue, the CSV export and the API all take the same parameters, so a view shared
by URL means the same rows everywhere:

    status, type        repeatable (?status=new&status=check)
    speaker             case-insensitive substring of the speaker's name
    outlet, article     ids (article: kept for links; the filter bar offers article_title)
    article_title       case-insensitive substring of the article's title
    meta                repeatable "key:value": the article's imported metadata (a JSON or CSV
                        column beyond the known ones, BBC's category); values of one key are
                        alternatives, different keys must all match
    score_min/score_max the model's check-worthiness score, between 0 and 1 (what each row
                        shows as "score"; the priority the queue ranks by is in points)
    assignee            "mine", "unassigned" or a user id
    date_from/date_to   the article's publication date (its import date when it has none)
    has_number          "yes" or "no"
    checked_before      "yes" or "no": a confirmed match to a library fact-check, or a likely suggestion
    tag                 one tag
    run                 a pipeline run's id: the claims it found first (new in that run)
    import              an import batch's id: the claims its runs found first
    q                   full-text search (web-search syntax: "quoted phrase", -not, or)
                        over the claim's sentence and speaker
    in_article          "yes": the search also finds claims whose article's title or text
                        matches (after the claims that match themselves)
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django import forms
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.postgres.search import SearchHeadline, SearchQuery
from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connection, models
from django.db.models import Exists, F, FloatField, Func, OuterRef, Q, QuerySet, TextField, Value
from django.db.models.expressions import RawSQL
from django.http import QueryDict
from django.utils import timezone

from factcheck.articles.models import Article
from factcheck.claims.models import Claim
from factcheck.factchecks.models import ClaimMatch
from factcheck.factchecks.selectors import checked_before_q
from factcheck.runs.models import PipelineRun

T = TypeVar("T")

FILTER_FIELDS = (
    "status",
    "type",
    "speaker",
    "outlet",
    "article",
    "article_title",
    "meta",
    "score_min",
    "score_max",
    "assignee",
    "date_from",
    "date_to",
    "has_number",
    "checked_before",
    "tag",
    "run",
    "import",
    "q",
    "in_article",
)


META_SEPARATOR = ":"
META_MAX_LENGTH = 300


class MetadataValuesField(forms.Field):
    """The repeatable `meta` parameter: "key:value" pairs (the first colon separates them)."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[str]:
        if not value:
            return []
        if isinstance(value, str):
            value = [value]
        pairs = []
        for raw in value:
            pair = str(raw).strip()
            if not pair:
                continue
            key, separator, _ = pair.partition(META_SEPARATOR)
            if not separator or not key.strip():
                raise forms.ValidationError(f"{pair[:60]!r} is not key:value (category:politics).")
            if "\x00" in pair:
                # PostgreSQL's jsonb holds no NUL character (the other text fields refuse it too).
                raise forms.ValidationError("Null characters are not allowed.")
            if len(pair) > META_MAX_LENGTH:
                raise forms.ValidationError(f"A key:value pair is at most {META_MAX_LENGTH} characters.")
            pairs.append(pair)
        return pairs


class QueueFilterForm(forms.Form):
    status = forms.MultipleChoiceField(choices=Claim.Status.choices, required=False)
    type = forms.MultipleChoiceField(choices=Claim.Type.choices, required=False)
    speaker = forms.CharField(required=False, max_length=300)
    outlet = forms.IntegerField(required=False, min_value=1)
    article = forms.IntegerField(required=False, min_value=1)
    article_title = forms.CharField(required=False, max_length=200, label="Article")
    meta = MetadataValuesField(required=False, label="Article metadata")
    score_min = forms.FloatField(required=False, min_value=0, max_value=1, label="Score from (0–1)")
    score_max = forms.FloatField(required=False, min_value=0, max_value=1, label="Score to (0–1)")
    assignee = forms.RegexField(
        required=False,
        regex=r"^(mine|unassigned|[0-9]{1,40})$",
        error_messages={"invalid": "Assignee must be 'mine', 'unassigned' or a user id."},
    )
    date_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    has_number = forms.ChoiceField(required=False, choices=[("", "Any"), ("yes", "With a number"), ("no", "Without")])
    checked_before = forms.ChoiceField(required=False, choices=[("", "Any"), ("yes", "Checked before"), ("no", "Not checked before")])
    tag = forms.CharField(required=False, max_length=40)
    run = forms.IntegerField(required=False, min_value=1, label="New in run")
    q = forms.CharField(required=False, max_length=500, label="Search")
    in_article = forms.ChoiceField(required=False, choices=[("", "No"), ("yes", "Yes")], label="In the whole article")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # "import" is a Python keyword, so the field cannot be declared as an attribute.
        self.fields["import"] = forms.IntegerField(required=False, min_value=1, label="New in import")

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


@functools.cache
def my_claims_querystring() -> str:
    """The queue's "My claims" view (MY_CLAIMS_VALUES) as a canonical query string (a
    constant: made once per process, not on every page that compares a view with it)."""
    params = QueryDict(mutable=True)
    for name, value in MY_CLAIMS_VALUES.items():
        params.setlist(name, value if isinstance(value, list) else [value])
    return queue_filter_from(params).querystring()


# --- The filters, each defined once ---------------------------------------------------------
#
# Each filter is a Q over the claims table's own columns (an article's outlet or date is a
# subquery on the articles, not a join), so the same Q both filters a queryset (the API, the
# exports, the reports, the bulk actions) and, compiled by Django into SQL (filter_sql), goes
# into the queue page's query, which must shape its own plan (queue_page.sql).


def _article_ids(condition: Q) -> Q:
    return Q(article_id__in=Article.objects.filter(condition).values("id"))


def _status_q(values: dict[str, Any]) -> Q:
    """The status filter (an empty Q without one): claim_filter_q's first condition, and on
    its own the part of the filters the queue's day index holds (FilterSQL.in_index)."""
    return Q(status__in=statuses) if (statuses := values.get("status")) else Q()


def _published_on_or(lookup: str, day: Any) -> Q:
    """The article's publication date `lookup` (gte, lte) the day; its import date when it has none."""
    return Q(**{f"published_at__date__{lookup}": day}) | Q(published_at__isnull=True, **{f"created_at__date__{lookup}": day})


def _metadata_candidates(value: str) -> list[object]:
    """The JSON values a metadata value typed as text stands for: the string itself, and the
    number or boolean it spells (a JSON import keeps `"year": 2004` a number; CSV has text)."""
    candidates: list[object] = [value]
    try:
        parsed = json.loads(value)
    except ValueError:
        return candidates
    if isinstance(parsed, float) and not math.isfinite(parsed):
        return candidates  # NaN and Infinity are not JSON
    if isinstance(parsed, bool | int | float):
        candidates.append(parsed)
    return candidates


def metadata_q(pairs: list[str]) -> Q:
    """Articles whose metadata holds the pairs: one of the values given for each key. Each is
    a containment (`metadata @> {"key": value}`), which article_metadata_idx answers."""
    by_key: dict[str, list[str]] = {}
    for pair in pairs:
        key, _, value = pair.partition(META_SEPARATOR)
        by_key.setdefault(key.strip(), []).append(value.strip())
    condition = Q()
    for key, values in by_key.items():
        either = Q()
        for value in values:
            for candidate in _metadata_candidates(value):
                either |= Q(metadata__contains={key: candidate})
        condition &= either
    return condition


def _checked_before() -> Q:
    """Claims with a match that makes them "Checked before" (factchecks.selectors.checked_before_q:
    what the queue's badge shows, the one rule)."""
    return Q(id__in=ClaimMatch.objects.filter(checked_before_q()).values("claim_id"))


def claim_filter_q(*, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser) -> Q:
    """Every valid filter value (QueueFilter.values) but the search, as one condition."""
    condition = _status_q(values)
    if types := values.get("type"):
        condition &= Q(claim_type__in=types)
    if speaker := values.get("speaker"):
        condition &= Q(speaker__icontains=speaker.strip())
    if outlet := values.get("outlet"):
        condition &= _article_ids(Q(outlet_id=outlet))
    if article := values.get("article"):
        condition &= Q(article_id=article)
    if title := (values.get("article_title") or "").strip():
        condition &= _article_ids(Q(title__icontains=title))
    if pairs := values.get("meta"):
        condition &= _article_ids(metadata_q(pairs))
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
    if run := values.get("run"):
        condition &= Q(first_run_id=run)
    if batch := values.get("import"):
        condition &= Q(first_run_id__in=PipelineRun.objects.filter(import_batch_id=batch).values("id"))
    return condition


# "My claims": assigned to the user, with the user's work on them not finished (a claim waiting
# for an editor's approval, approved or dismissed is finished for its assignee).
MY_CLAIMS_VALUES: dict[str, Any] = {
    "assignee": "mine",
    "status": [Claim.Status.NEW.value, Claim.Status.CHECK.value, Claim.Status.IN_RESEARCH.value, Claim.Status.RETURNED.value],
}


def search_query(text: str) -> SearchQuery:
    return SearchQuery(text.strip(), search_type="websearch", config="english")


# The marks around each matched word in a search's highlighted sentence (search_headline):
# control characters no sentence holds (the sentence is stripped of them first), so the text
# between them can be escaped as any other text and the marks turned into <mark> elements.
MATCH_START, MATCH_END = "\x02", "\x03"


@dataclass(frozen=True)
class Search:
    """The q filter. A claim matches by its own sentence and speaker (in_sentence); with "in
    the whole article" ticked, also by its article's title and text (in_article, else None).
    Kept as two conditions, not one OR: each has its own index (the claims' and the articles'
    search vectors), and the queue plans them apart.

    On the queue page a search lists its groups one after the other (`groups`), each in queue
    order: the claims whose text has the words as typed, in that order (a phrase match:
    "flood the zone" before "the zone ... may flood"); then the claims whose text has them
    otherwise; then, with "in the whole article", the claims found through their article only.
    Each group is a condition queue_page.sql pages through its index exactly and fast;
    ranking within a group by ts_rank would read every match of a common word for each page."""

    text: str
    in_sentence: Q
    in_article: Q | None

    @property
    def either(self) -> Q:
        return self.in_sentence if self.in_article is None else self.in_sentence | self.in_article

    @property
    def as_phrase(self) -> Q:
        """The claims whose own text has the words as one phrase (found through the phrase's
        adjacent pairs when it has any: search_shape)."""
        return Q(search=SearchQuery(self.text, search_type="phrase", config="english")) & holding_pairs(search_shape(self.text).phrase_pairs)

    @property
    def article_only(self) -> Q:
        """The claims found through their article and not by themselves. The article is
        probed per claim (EXISTS), not listed (in_article's IN): a page checks this on its
        few candidates, where IN's hashed list first reads every article the search matches
        (all of them, for a common word). Counts keep in_article: they check every claim."""
        if self.in_article is None:
            return Q(pk__in=[])
        return Q(Exists(Article.objects.filter(pk=OuterRef("article_id"), search=search_query(self.text)))) & ~self.in_sentence

    def groups(self, *, phrase_differs: bool) -> list[Q]:
        """The search's groups in the order the queue lists them. `phrase_differs`: whether
        the phrase query differs from the search's own (selectors.PHRASE_DIFFERS_SQL); when it does not
        (one word, a quoted phrase) the phrase group would be every match and the second one
        empty, which the queue would have to walk its whole index to find out."""
        groups = [self.in_sentence & self.as_phrase, self.in_sentence & ~self.as_phrase] if phrase_differs else [self.in_sentence]
        return groups + ([self.article_only] if self.in_article is not None else [])

    @property
    def headline(self) -> SearchHeadline:
        """The claim's sentence with each matched word between MATCH_START and MATCH_END."""
        sentence = Func(F("sentence"), Value(MATCH_START + MATCH_END), Value(""), function="translate", output_field=TextField())
        return SearchHeadline(sentence, search_query(self.text), config="english", start_sel=MATCH_START, stop_sel=MATCH_END, highlight_all=True)


def search_for(values: dict[str, Any]) -> Search | None:
    if not (text := (values.get("q") or "").strip()):
        return None
    query = search_query(text)
    in_article = _article_ids(Q(search=query)) if values.get("in_article") == "yes" else None
    # A quoted phrase (or a hyphenated word) asks for words side by side: its pairs find its
    # matches, where the search index alone finds every claim with the words.
    return Search(text=text, in_sentence=Q(search=query) & holding_pairs(search_shape(text).word_pairs), in_article=in_article)


# How PostgreSQL reads a search's text, in one query: whether its words as one phrase query
# differently from the search itself; whether the search's own query holds a word-order
# operator (<-> or <N>) outside its quoted lexemes; and the adjacent word pairs
# (claims.phrase_pairs) every match must hold, of the search's own query and of its words as one
# phrase (claim_query_pairs, claims migration 0025). The answer depends on the text alone, so
# each process asks once per text.
SEARCH_SHAPE_SQL = (
    "SELECT phraseto_tsquery('english', %(text)s)::text <> websearch_to_tsquery('english', %(text)s)::text,"
    r""" regexp_replace(websearch_to_tsquery('english', %(text)s)::text, '''([^'']|'''')*''', '', 'g') ~ '<',"""
    " claim_query_pairs(websearch_to_tsquery('english', %(text)s)), claim_query_pairs(phraseto_tsquery('english', %(text)s))"
)


@dataclass(frozen=True)
class SearchShape:
    phrase_differs: bool  # Search.groups
    in_order: bool  # selectors.in_order
    word_pairs: tuple[str, ...]  # of the search's own query
    phrase_pairs: tuple[str, ...]  # of its words as one phrase


@functools.lru_cache(maxsize=512)
def search_shape(text: str) -> SearchShape:
    with connection.cursor() as cursor:
        cursor.execute(SEARCH_SHAPE_SQL, {"text": text})
        differs, ordered, words, phrase = cursor.fetchone()
    return SearchShape(bool(differs), bool(ordered), tuple(words), tuple(phrase))


def holding_pairs(pairs: tuple[str, ...]) -> Q:
    """The claims holding every one of these adjacent word pairs (nothing to ask without any).
    Only a prefilter: the pairs can come from different places in a claim, so the phrase
    itself is checked as well."""
    return Q(phrase_pairs__contains=list(pairs)) if pairs else Q()


def highlighted_parts(headline: str) -> list[tuple[str, bool]]:
    """(text, matched) pieces of a search_headline, for a template to print escaped."""
    parts: list[tuple[str, bool]] = []
    for piece in headline.split(MATCH_START):
        matched, _, rest = piece.rpartition(MATCH_END)
        if matched:
            parts.append((matched, True))
        if rest:
            parts.append((rest, False))
    return parts


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
    the search, and the search's two conditions (TRUE and FALSE without a search, FALSE for
    in_article unless "in the whole article" is ticked)."""

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
    # Whether the head must check `first` on its rows from the first page on: a search group
    # after the first, where a cluster's first row in the walk may be listed in an earlier
    # group and so be no row here (counted, it would raise L above rows the page must show).
    head_checks_first: bool = False
    # The part of `where` that claim_queue_day_idx holds (the status filter): the band checks
    # it on the index entries, so that other statuses' claims are never read.
    in_index: str = "TRUE"
    in_index_params: list[Any] = field(default_factory=list)

    @property
    def searches(self) -> bool:
        """Whether a search (or one of its groups) is part of the filters."""
        return self.in_sentence != "TRUE"


def compiled_condition(condition: Q, *, model: type[models.Model] = Claim) -> tuple[str, list[Any]]:
    """A condition over the model's table as SQL ("TRUE"/"FALSE" when it is always/never true)."""
    query = model._default_manager.filter(condition).query
    try:
        sql, params = query.get_compiler(connection=connection).compile(query.where)
    except EmptyResultSet:
        return "FALSE", []
    except FullResultSet:
        return "TRUE", []
    return sql, list(params)


def first_in_cluster(condition: Q, *, shown_before: Q | None = None) -> Q:
    """The claims that no appearance of their cluster matching `condition` outranks in
    standing order (priority, then id, as claim_queue_order_idx): the one row per cluster the
    queue shows. A cluster is one claim (status, assignee, tags, notes and verdict are the
    cluster's), so its row is its best-ranked appearance among those the filters match: an
    outlet or article filter shows the cluster through the appearance it matched. A claim in
    no cluster is its own row; one alone in its cluster costs one probe of
    claim_cluster_key_idx. `shown_before`: the condition of a search's earlier groups (a
    cluster is listed in the first group one of its appearances is in, and only there)."""
    better = Claim.objects.filter(condition, cluster_key=OuterRef("cluster_key")).filter(
        Q(priority__gt=OuterRef("priority")) | Q(priority=OuterRef("priority"), id__gt=OuterRef("id"))
    )
    first = Q(~Exists(better))
    if shown_before is not None:
        first &= Q(~Exists(Claim.objects.filter(shown_before, cluster_key=OuterRef("cluster_key"))))
    return Q(cluster_key="") | first


def compiled_expression(expression: Any) -> tuple[str, list[Any]]:
    """An ORM expression over the claims table as SQL (its columns as "claims"."...")."""
    query = Claim.objects.all().query
    sql, params = query.get_compiler(connection=connection).compile(expression.resolve_expression(query))
    return sql, list(params)


# Compiling the filters through the ORM costs more than a page's own SQL for a search (a few
# milliseconds per condition, several conditions per group), and the same views are asked for
# over and over: each process keeps the last COMPILED_KEPT compilations. What a compilation
# reads besides the filter values and the user is in its key (_compile_context).
COMPILED_KEPT = 512
_compiled: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_compiled_lock = threading.Lock()


def _values_key(values: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted((name, tuple(value) if isinstance(value, list) else value) for name, value in values.items()))


def _compile_context() -> tuple[Any, ...]:
    """What compiling the filters reads besides their values and the user: the "checked
    before" score and the time zone that dates are compared in."""
    return (settings.FACTCHECK_CHECKED_BEFORE_MIN_SCORE, timezone.get_current_timezone_name())


def _remembered(key: tuple[Any, ...], compile_: Callable[[], T]) -> T:
    key = (*key, _compile_context())
    with _compiled_lock:
        if (found := _compiled.get(key)) is not None:
            _compiled.move_to_end(key)
            return found
    compiled = compile_()
    with _compiled_lock:
        _compiled[key] = compiled
        while len(_compiled) > COMPILED_KEPT:
            _compiled.popitem(last=False)
    return compiled


def _in_index(values: dict[str, Any]) -> tuple[str, list[Any]]:
    """claim_filter_q's status filter compiled alone ("TRUE" without one): FilterSQL.in_index."""
    return compiled_condition(_status_q(values))


def filter_sql(*, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser, one_per_cluster: bool = True) -> FilterSQL:
    """The filters compiled; `one_per_cluster` (the queue) adds first_in_cluster as `first`;
    without it (the API's claim lists) every matching appearance is a row."""

    def compile_() -> FilterSQL:
        search = search_for(values)
        condition = claim_filter_q(values=values, user=user)
        matches_all = search is None and not condition
        first, first_params = compiled_condition(first_in_cluster(condition & search.either if search else condition)) if one_per_cluster else ("TRUE", [])
        where, where_params = compiled_condition(condition)
        in_sentence, in_sentence_params = compiled_condition(search.in_sentence) if search else ("TRUE", [])
        in_article, in_article_params = compiled_condition(search.in_article) if search and search.in_article is not None else ("FALSE", [])
        in_index, in_index_params = _in_index(values)
        return FilterSQL(
            where, where_params, in_sentence, in_sentence_params, in_article, in_article_params, matches_all, first, first_params,
            in_index=in_index, in_index_params=in_index_params,
        )

    return _remembered(("all", _values_key(values), user.pk, one_per_cluster), compile_)


def group_filter_sql(*, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser, search: Search, phrase_differs: bool, number: int) -> FilterSQL:
    """The filters for one of a search's groups (`search.groups(phrase_differs=...)[number]`),
    in queue_page.sql's shape: the group as its first branch, its second branch empty. One row
    per cluster across the groups: a cluster's row is its best-ranked appearance in the first
    group that holds one of its matching appearances."""

    def compile_() -> FilterSQL:
        groups = search.groups(phrase_differs=phrase_differs)
        condition = claim_filter_q(values=values, user=user)
        where, where_params = compiled_condition(condition)
        in_group, in_group_params = compiled_condition(groups[number])
        earlier = Q(pk__in=[])
        for group in groups[:number]:
            earlier |= group
        first, first_params = compiled_condition(
            first_in_cluster(condition & groups[number], shown_before=condition & earlier if number else None)
        )
        in_index, in_index_params = _in_index(values)
        return FilterSQL(
            where, where_params, in_group, in_group_params, "FALSE", [], False, first, first_params,
            head_checks_first=number > 0, in_index=in_index, in_index_params=in_index_params,
        )

    return _remembered(("group", _values_key(values), user.pk, phrase_differs, number), compile_)


def phrase_sql(*, search: Search) -> tuple[str, list[Any]]:
    """Search.as_phrase compiled: the claims whose own text has the words as one phrase."""
    return _remembered(("phrase", search.text), lambda: compiled_condition(search.as_phrase))


def headline_sql(*, search: Search) -> tuple[str, list[Any]]:
    """Search.headline compiled: the claim's sentence with the search's words marked."""
    return _remembered(("headline", search.text), lambda: compiled_expression(search.headline))


def words_sql(*, search: Search) -> tuple[str, list[Any]]:
    """The search's words as a tsquery: what Search.in_sentence matches the claims' search vector against."""
    return _remembered(("words", search.text), lambda: compiled_expression(search_query(search.text)))


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


# --- A search's order: its groups one after the other, each in queue order ------------------


@dataclass(frozen=True)
class SearchPosition:
    """Where a search page ends: in group `group` (Search.groups) at (total, id)."""

    group: int
    total: float
    pk: int


def encode_search_cursor(position: SearchPosition) -> str:
    raw = f"g{position.group}:{position.total!r}:{position.pk}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_search_cursor(cursor: str) -> SearchPosition | None:
    """A search page's position, or None when the cursor is malformed or a plain queue
    cursor (then the search starts over)."""
    try:
        group, total, pk = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split(":")
        if not group.startswith("g"):
            return None
        position = SearchPosition(group=int(group[1:]), total=float(total), pk=int(pk))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    return position if math.isfinite(position.total) and position.group >= 0 else None
