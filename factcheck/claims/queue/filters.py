"""The queue's filters and order: one form that reads them from a query string, one condition
per filter (claim_filter_q, search_for) that filters querysets; the queue order (the stored
Claim.queue_rank, then id, descending) and its keyset cursor.

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
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import SearchHeadline, SearchQuery
from django.db import connection
from django.db.models import Exists, F, Func, JSONField, OuterRef, Q, QuerySet, TextField, Value
from django.http import QueryDict

from factcheck.articles.models import Article
from factcheck.claims.models import Claim
from factcheck.factchecks.models import ClaimMatch
from factcheck.factchecks.selectors import checked_before_q
from factcheck.runs.models import PipelineRun

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
# subquery on the articles, not a join) or its cluster's (status, assignee, tags: the work is
# the cluster's, one join on its key), so the same Q filters every queryset of claims: the
# queue, the API, the exports, the reports and the bulk actions.


def _article_ids(condition: Q) -> Q:
    return Q(article_id__in=Article.objects.filter(condition).values("id"))


def _status_q(values: dict[str, Any]) -> Q:
    return Q(cluster__status__in=statuses) if (statuses := values.get("status")) else Q()


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
    """Articles whose metadata holds the pairs: one of the values given for each key. Each pair
    is looked up in Article.metadata_pairs, written by the same SQL function as the column."""
    by_key: dict[str, list[str]] = {}
    for pair in pairs:
        key, _, value = pair.partition(META_SEPARATOR)
        by_key.setdefault(key.strip(), []).append(value.strip())
    condition = Q()
    for key, values in by_key.items():
        either = Q()
        for value in values:
            for candidate in _metadata_candidates(value):
                written = Func(Value({key: candidate}, output_field=JSONField()), function="article_metadata_pairs", output_field=ArrayField(TextField()))
                either |= Q(metadata_pairs__contains=written)
        condition &= either
    return condition


def _checked_before() -> Q:
    """Claims with a match that makes them "Checked before" (factchecks.selectors.checked_before_q:
    what the queue's badge shows, the one rule)."""
    return Q(id__in=ClaimMatch.objects.filter(checked_before_q()).values("claim_id"))


def claim_filter_q(*, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser) -> Q:
    """Every valid filter value (QueueFilter.values) but the search, as one condition."""
    return cluster_state_q(values=values, user=user) & appearance_q(values=values)


def cluster_state_q(*, values: dict[str, Any], user: AbstractBaseUser | AnonymousUser) -> Q:
    """The filters on the cluster's state (status, assignee, tag): true or false alike for every
    appearance of a cluster."""
    condition = _status_q(values)
    assignee = values.get("assignee")
    if assignee == "mine":
        condition &= Q(cluster__assignee_id=user.pk)
    elif assignee == "unassigned":
        condition &= Q(cluster__assignee__isnull=True)
    elif assignee:
        condition &= Q(cluster__assignee_id=int(assignee))
    if tag := values.get("tag"):
        condition &= Q(cluster__tags__contains=[tag.strip()])
    return condition


def appearance_q(*, values: dict[str, Any]) -> Q:
    """The filters on what is an appearance's own (its text, score, article, run): those that
    can tell one appearance of a cluster from another."""
    condition = Q()
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


def search_query(text: str, *, search_type: str = "websearch") -> SearchQuery:
    return SearchQuery(text.strip(), search_type=search_type, config="english")


# The marks around each matched word in a search's highlighted sentence (Search.headline):
# control characters no sentence holds (the sentence is stripped of them first), so the text
# between them can be escaped as any other text and the marks turned into <mark> elements.
MATCH_START, MATCH_END = "\x02", "\x03"


@dataclass(frozen=True)
class SearchShape:
    """How PostgreSQL reads a search's text (search_shape)."""

    phrase_differs: bool  # its words as one phrase query differently from the search itself
    word_pairs: tuple[str, ...]  # adjacent word pairs every match holds (claims.phrase_pairs)
    phrase_pairs: tuple[str, ...]  # those of its words as one phrase
    phrase_held: bool = True  # some claim holds all of phrase_pairs (else none has the phrase)


# The pairs are claim_query_pairs' (claims migration 0025): the search index holds no word
# positions, so a phrase's matches are found through the pairs' own index, which also tells at
# once whether any claim holds them all (the two words never in that order: no phrase group).
SEARCH_SHAPE_SQL = (
    "SELECT phraseto_tsquery('english', %(text)s)::text <> websearch_to_tsquery('english', %(text)s)::text,"
    " claim_query_pairs(websearch_to_tsquery('english', %(text)s)), claim_query_pairs(phraseto_tsquery('english', %(text)s)),"
    " CASE WHEN cardinality(claim_query_pairs(phraseto_tsquery('english', %(text)s))) = 0 THEN true"
    " ELSE EXISTS (SELECT FROM claims WHERE phrase_pairs @> claim_query_pairs(phraseto_tsquery('english', %(text)s))) END"
)


def search_shape(text: str) -> SearchShape:
    with connection.cursor() as cursor:
        cursor.execute(SEARCH_SHAPE_SQL, {"text": text})
        differs, words, phrase, held = cursor.fetchone()
    return SearchShape(bool(differs), tuple(words), tuple(phrase), bool(held))


def holding_pairs(pairs: tuple[str, ...]) -> Q:
    """The claims holding every one of these adjacent word pairs (nothing to ask without any).
    Only a prefilter: the pairs can come from different places in a claim, so the phrase
    itself is checked as well."""
    return Q(phrase_pairs__contains=list(pairs)) if pairs else Q()


# A group no claim can match (Search.groups): Django answers a queryset filtered by it with no
# rows without asking the database.
NOTHING = Q(pk__in=[])


@dataclass(frozen=True)
class Search:
    """The q filter. A claim matches by its own sentence and speaker (in_sentence); with "in
    the whole article" ticked, also by its article's title and text (in_article, else None).

    The queue lists a search's groups one after the other (`groups`), each in queue order: the
    claims whose text has the words as typed, in that order (a phrase match: "flood the zone"
    before "the zone ... may flood"), when that differs from the search; then the claims whose
    text has them otherwise; then, with "in the whole article", the claims found through their
    article only. Each group is a plain condition read down the queue's index."""

    text: str
    shape: SearchShape
    in_article: Q | None

    @property
    def in_sentence(self) -> Q:
        return Q(search=search_query(self.text)) & holding_pairs(self.shape.word_pairs)

    @property
    def either(self) -> Q:
        return self.in_sentence if self.in_article is None else self.in_sentence | self.in_article

    @property
    def as_phrase(self) -> Q:
        return Q(search=search_query(self.text, search_type="phrase")) & holding_pairs(self.shape.phrase_pairs)

    @property
    def article_only(self) -> Q:
        """The claims found through their article and not by themselves, the article probed
        per claim (EXISTS) as the walk down the queue meets it."""
        found = Exists(Article.objects.filter(pk=OuterRef("article_id"), search=search_query(self.text)))
        return Q(found) & ~self.in_sentence

    @functools.cached_property
    def groups(self) -> list[Q]:
        """The search's groups in the order the queue lists them (when the phrase is the search
        itself, one word or a quoted phrase, there is one group of the claim's own text). When
        no claim holds the phrase's word pairs, none has the words in that order: its group is
        NOTHING, kept so that a cursor's group number means the same on the next page. Built
        once a search: a page asks for them, and for found_in_article_group, more than once."""
        if not self.shape.phrase_differs:
            own = [self.in_sentence]
        elif self.shape.phrase_held:
            own = [self.in_sentence & self.as_phrase, self.in_sentence & ~self.as_phrase]
        else:
            own = [NOTHING, self.in_sentence]
        return own + ([self.article_only] if self.in_article is not None else [])

    @property
    def found_in_article_group(self) -> int | None:
        return len(self.groups) - 1 if self.in_article is not None else None

    @property
    def headline(self) -> SearchHeadline:
        """The claim's sentence with each matched word between MATCH_START and MATCH_END."""
        sentence = Func(F("sentence"), Value(MATCH_START + MATCH_END), Value(""), function="translate", output_field=TextField())
        return SearchHeadline(sentence, search_query(self.text), config="english", start_sel=MATCH_START, stop_sel=MATCH_END, highlight_all=True)


def search_for(values: dict[str, Any]) -> Search | None:
    if not (text := (values.get("q") or "").strip()):
        return None
    in_article = _article_ids(Q(search=search_query(text))) if values.get("in_article") == "yes" else None
    return Search(text=text, shape=search_shape(text), in_article=in_article)


def highlighted_parts(headline: str) -> list[tuple[str, bool]]:
    """(text, matched) pieces of a search headline, for a template to print escaped."""
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


# --- The queue order: queue_rank DESC, id DESC, read by keyset ---------------------------------

QUEUE_ORDER = ("-queue_rank", "-id")


def after_position(claims: QuerySet[Any], position: tuple[float, int] | None) -> QuerySet[Any]:
    """The claims after (queue_rank, id) in queue order (all of them from the start), as one
    row comparison the order's index reads as a range."""
    if position is None:
        return claims
    rank, pk = position
    return claims.alias(position=Func(F("queue_rank"), F("id"), function="ROW", output_field=TextField())).filter(
        position__lt=Func(Value(rank), Value(pk), function="ROW", output_field=TextField())
    )


def first_in_cluster(condition: Q) -> Q:
    """The claims that no appearance of their cluster matching `condition` outranks in queue
    order: the one row per cluster the queue shows, its best-ranked matching appearance (an
    outlet filter shows the cluster through the appearance it matched). A claim alone is its
    cluster's only appearance, so its own row. `condition` needs only the appearances' own
    filters (appearance_q): a claim the queue reads already matches its cluster's state, and so
    does every other appearance of its cluster."""
    better = Claim.objects.filter(condition, cluster_id=OuterRef("cluster_id")).filter(
        Q(queue_rank__gt=OuterRef("queue_rank")) | Q(queue_rank=OuterRef("queue_rank"), id__gt=OuterRef("id"))
    )
    return Q(~Exists(better))


def encode_cursor(rank: float, pk: int, *, group: int | None = None) -> str:
    """A page's end: (queue_rank, id), and with a search the group it is in."""
    raw = (f"g{group}:" if group is not None else "") + f"{rank!r}:{pk}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


@dataclass(frozen=True)
class Position:
    rank: float
    pk: int
    group: int | None = None  # a search's group (Search.groups)


def decode_cursor(cursor: str) -> Position | None:
    """The position of a cursor, or None when it is malformed or its rank is not a finite
    number (then the queue starts over)."""
    try:
        parts = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split(":")
        group = int(parts.pop(0)[1:]) if len(parts) == 3 and parts[0].startswith("g") else None
        text, pk = parts
        position = Position(rank=float(text), pk=int(pk), group=group)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    return position if math.isfinite(position.rank) and (position.group is None or position.group >= 0) else None
