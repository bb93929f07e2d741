"""Reads for claims: each selector fixes its query shape."""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db import connection
from django.db.models import Exists, Func, IntegerField, OuterRef, Prefetch, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.http import Http404

from factcheck.accounts.roles import GROUP_FOR_ROLE, Role, has_role
from factcheck.audit.models import AuditEvent
from factcheck.cache import QUEUE_CHANGES
from factcheck.claims.filters import (
    MY_CLAIMS_VALUES,
    RECENCY_SQL,
    FilterSQL,
    Search,
    SearchPosition,
    claim_filter_q,
    compiled_condition,
    decode_cursor,
    decode_search_cursor,
    encode_cursor,
    encode_search_cursor,
    filter_sql,
    group_filter_sql,
    headline_sql,
    highlighted_parts,
    phrase_sql,
    search_for,
    search_shape,
    with_recency,
    words_sql,
)
from factcheck.claims.models import Annotation, BulkAction, Claim, Evidence, PriorityBasis, RankingWeights, SavedView, Verdict
from factcheck.claims.ranking import DEFAULT_RANKING_WEIGHTS


def claim_get_for_user(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> Claim:
    """The access helper: a claim is visible to reviewers and up; anyone else gets 404."""
    if not has_role(user, Role.REVIEWER):
        raise Http404("No such claim.")
    try:
        return claims_for_pages().get(pk=pk)
    except Claim.DoesNotExist as exc:
        raise Http404("No such claim.") from exc


def claims_for_pages() -> QuerySet[Claim]:
    """Claims as the claim page shows them: with their article, outlet and assignee, and
    their `recency` points and `total` (the queue's rank) as the queue computes them."""
    return with_recency(Claim.objects.select_related("article", "article__outlet", "assignee", "model_version"))


def claim_cluster_ids(*, claim: Claim) -> list[int]:
    """The ids of every appearance of the claim's cluster (the claim's own when it has none)."""
    if not claim.cluster_key:
        return [claim.pk]
    return list(Claim.objects.filter(cluster_key=claim.cluster_key).order_by("id").values_list("id", flat=True))


def claim_appearances(*, claim: Claim) -> list[Claim]:
    """Every appearance of the claim's cluster, first published first."""
    if not claim.cluster_key:
        return [claim]
    return list(
        Claim.objects.filter(cluster_key=claim.cluster_key)
        .select_related("article", "article__outlet")
        .order_by(Coalesce("article__published_at", "article__created_at"), "id")
    )


def claim_timeline(*, claim_ids: list[int]) -> QuerySet[AuditEvent]:
    """The audit rows of every appearance of a cluster, oldest first: each change is recorded
    on the appearance it was made on, so a merged cluster shows both histories and a split
    one keeps its own."""
    return AuditEvent.objects.filter(object_type="claim", object_id__in=claim_ids).select_related("actor").order_by("created_at", "id")


@dataclass(frozen=True)
class HighlightedText:
    before: str
    highlighted: str
    after: str


def claim_in_context(*, claim: Claim) -> HighlightedText:
    text = claim.article.text
    return HighlightedText(
        before=text[: claim.start_offset],
        highlighted=text[claim.start_offset : claim.end_offset],
        after=text[claim.end_offset :],
    )


def claim_paragraph(*, claim: Claim) -> HighlightedText:
    """The paragraph (blank-line delimited) that holds the claim, with the claim marked."""
    text = claim.article.text
    start = text.rfind("\n\n", 0, claim.start_offset)
    start = 0 if start < 0 else start + 2
    end = text.find("\n\n", claim.end_offset)
    end = len(text) if end < 0 else end
    return HighlightedText(
        before=text[start : claim.start_offset],
        highlighted=text[claim.start_offset : claim.end_offset],
        after=text[claim.end_offset : end],
    )


@dataclass(frozen=True)
class Workspace:
    annotations: list[Annotation]
    evidence: list[Evidence]
    verdicts: list[Verdict]  # newest first (VERDICT_NEWEST_FIRST)

    @property
    def current_verdict(self) -> Verdict | None:
        return self.verdicts[0] if self.verdicts else None

    @property
    def published_verdict(self) -> Verdict | None:
        approved = [v for v in self.verdicts if v.status == Verdict.Status.APPROVED and v.approved_at is not None]
        return max(approved, key=lambda v: (v.approved_at, v.pk)) if approved else None


# A cluster's verdicts, newest first: its current verdict is the revision written last on
# any appearance (one chain normally; two after clusters with verdicts merged).
VERDICT_NEWEST_FIRST = ("-created_at", "-id")


def claim_workspace(*, claim_ids: list[int]) -> Workspace:
    """Notes, evidence and every verdict revision of a cluster (`claim_ids`: its appearances,
    claim_cluster_ids), whichever appearance each was written on, in four queries."""
    return Workspace(
        annotations=list(Annotation.objects.filter(claim_id__in=claim_ids).select_related("author").order_by("created_at", "id")),
        evidence=list(Evidence.objects.filter(claim_id__in=claim_ids).select_related("added_by").order_by("created_at", "id")),
        verdicts=list(
            Verdict.objects.filter(claim_id__in=claim_ids)
            .select_related("author", "approved_by")
            .prefetch_related(Prefetch("evidence", queryset=Evidence.objects.order_by("id")))
            .order_by(*VERDICT_NEWEST_FIRST)
        ),
    )


def assignable_users() -> QuerySet[User]:
    """Everyone who may hold a claim: active users with a role."""
    return (
        get_user_model()
        .objects.filter(is_active=True, groups__name__in=list(GROUP_FOR_ROLE.values()))
        .distinct()
        .order_by("username")
    )


# --- The triage queue ----------------------------------------------------------------------

QUEUE_PAGE_SQL = (Path(__file__).parent / "queue_page.sql").read_text()
MAX_ID = 2**63 - 1
HEAD_ROWS_PER_ROW = 5
HEAD_ROWS_PER_ROW_FILTERED = 2
# A search's walk that finds a match among every DENSE claims or fewer reads its band day by
# day (queue_page.sql, `dense`): checking up to DENSE candidates per row on the page costs less
# than crossing the search's index with the band's range, which reads every claim the search
# matches (a common word's tens of thousands).
DENSE = 20
# A walked claim's cluster key read on its own, by id (queue_page.sql, walked).
WALKED_CLUSTER_KEY_LOOKUP = "(SELECT kept.cluster_key FROM claims kept WHERE kept.id = claims.id)"

# The queue's rows in two steps: the page's (id, recency, total) (`{page}`: queue_page.sql),
# then, for those rows only, what each shows: its own columns, article heading, outlet,
# assignee, cluster size and appearances. A row holds what it shows and nothing more: an
# article's text and the search vectors are the bulk of a row's bytes.
QUEUE_ROWS_SQL = """
SELECT c.id, c.sentence, c.claim_type, c.quantities, c.speaker, c.speaker_title, c.score, c.priority, p.recency, p.total, c.priority_parts,
       c.status, c.dismiss_reason, c.tags, c.version, c.article_id, c.assignee_id, c.cluster_key,
       o.name AS outlet_name, u.username AS assignee_username,
       cc.size AS cluster_size, cc.outlet_count AS cluster_outlets,
       -- The article's title, or its first line when it has none, so its whole text never
       -- leaves the database.
       left(CASE WHEN a.title = '' THEN split_part(a.text, E'\\n', 1) ELSE a.title END, 110) AS article_heading
FROM ({page}) p
JOIN claims c ON c.id = p.id
JOIN articles a ON a.id = c.article_id
LEFT JOIN outlets o ON o.id = a.outlet_id
LEFT JOIN auth_user u ON u.id = c.assignee_id
LEFT JOIN claim_clusters cc ON cc.cluster_key = c.cluster_key
ORDER BY p.total DESC, p.id DESC
"""
# What a queue row's "3 outlets" expands to (views.queue_row_appearances, asked for when it is
# opened: listing them on every row was two fifths of a queue page's SQL): the cluster's
# appearances best-ranked first, at most `limit` (the claim page lists them all), and how
# many there are.
ROW_APPEARANCES_SQL = """
SELECT m.id, mo.name AS outlet_name, left(CASE WHEN ma.title = '' THEN split_part(ma.text, E'\\n', 1) ELSE ma.title END, 110) AS article_heading,
       count(*) OVER () AS size
FROM claims AS c
JOIN claims AS m ON m.cluster_key = c.cluster_key AND c.cluster_key <> ''
JOIN articles AS ma ON ma.id = m.article_id
LEFT JOIN outlets AS mo ON mo.id = ma.outlet_id
WHERE c.id = %s
ORDER BY m.priority DESC, m.id DESC
LIMIT %s
"""


@dataclass(frozen=True)
class RowAppearance:
    pk: int
    outlet_name: str | None
    article_heading: str


def row_appearances(*, claim_id: int, limit: int) -> tuple[list[RowAppearance], int]:
    """The first `limit` appearances of the claim's cluster in queue order, and how many it has
    (a claim in no cluster: none, 0)."""
    with connection.cursor() as cursor:
        cursor.execute(ROW_APPEARANCES_SQL, [claim_id, limit])
        found = cursor.fetchall()
    return [RowAppearance(pk, outlet, heading or "") for pk, outlet, heading, _ in found], (found[0][3] if found else 0)


# One claim's (id, recency, total), for its row after a row action.
ONE_CLAIM_SQL = f"SELECT id, {RECENCY_SQL} AS recency, priority + {RECENCY_SQL} AS total FROM claims WHERE id = %s"


def _queue_page_sql(
    *,
    user: AbstractBaseUser | AnonymousUser,
    values: dict[str, Any],
    position: tuple[float, int] | None,
    limit: int,
    one_per_cluster: bool = True,
) -> tuple[str, list[Any]]:
    """queue_page.sql with the filters compiled in, and its parameters. The queue shows one
    row per cluster (filters.first_in_cluster); `one_per_cluster=False` lists every
    appearance (the API)."""
    return _page_sql_for(filter_sql(values=values, user=user, one_per_cluster=one_per_cluster), position=position, limit=limit)


def _page_sql_for(filters: FilterSQL, *, position: tuple[float, int] | None, limit: int) -> tuple[str, list[Any]]:
    total, pk = position if position is not None else (math.inf, MAX_ID)
    # After a cursor the head checks its rows' cluster too (queue_page.sql's header says why),
    # and so does a search group's that may meet clusters an earlier group listed.
    head_checks = position is not None or filters.head_checks_first
    head_first, head_first_params = (filters.first, filters.first_params) if head_checks else ("TRUE", [])
    # An unfiltered walk after a cursor reads the index alone (queue_page.sql says why); any
    # other walk reads the rows for its filters anyway, and their cluster keys with them.
    index_only_walk = position is not None and filters.matches_all
    sql = QUEUE_PAGE_SQL.format(
        where=filters.where, in_sentence=filters.in_sentence, in_article=filters.in_article, first=filters.first, head_first=head_first,
        by_day="FALSE" if filters.searches else "TRUE", in_index=filters.in_index,
        walked_cluster_key=WALKED_CLUSTER_KEY_LOOKUP if index_only_walk else "claims.cluster_key",
    )
    after = [total, total, pk]
    # More head rows raise L and so narrow the band: worth it on an unfiltered first page,
    # up to a point: each costs a read of its row (the head needs its cluster key, which the
    # index does not hold), each band entry only an index entry (5 pages' worth measured
    # best: docs/benchmarks.md). After a cursor the band spans the recency weight below it
    # whatever L is. Twice the page otherwise: the head keeps one row per cluster, and fewer
    # than a page would leave no L at all.
    head = limit * (HEAD_ROWS_PER_ROW if position is None and filters.matches_all else HEAD_ROWS_PER_ROW_FILTERED)
    params = [
        *filters.in_sentence_params, *filters.where_params, *after, head,
        *filters.in_article_params, *filters.in_sentence_params, *filters.where_params, *after, head,
        head,
        *head_first_params, limit - 1,
        head, head, total, DENSE * head, DENSE * head,
        total, *filters.in_index_params, total, total, *filters.in_index_params,
        *filters.in_sentence_params, total,
        *filters.in_article_params, *filters.in_sentence_params, total,
        total, pk, *filters.where_params, *filters.in_sentence_params, *filters.in_article_params, *filters.first_params, limit,
    ]
    return sql, params


@dataclass(frozen=True)
class QueuePosition:
    id: int
    recency: float
    total: float


def queue_positions(
    *, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], position: tuple[float, int] | None, limit: int
) -> list[QueuePosition]:
    """The first `limit` matching claims after `position` ((total, id) of the last one seen),
    in queue order: what the queue page, the API and the bulk actions list."""
    sql, params = _queue_page_sql(user=user, values=values, position=position, limit=limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [QueuePosition(pk, recency, total) for pk, recency, total in cursor.fetchall()]


def queue_page_ids(
    *, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], position: tuple[float, int] | None, limit: int
) -> RawSQL:
    """queue_positions' ids as a subquery, for a queryset's `id__in` (the API's pages: its
    rows in the same query), every matching appearance a row."""
    sql, params = _queue_page_sql(user=user, values=values, position=position, limit=limit, one_per_cluster=False)
    return RawSQL(f"SELECT id FROM ({sql}) page", params)


def _queue_rows(page_sql: str, params: list[Any]) -> list[dict[str, Any]]:
    with connection.cursor() as cursor:
        cursor.execute(QUEUE_ROWS_SQL.format(page=page_sql), params)
        names = [column.name for column in cursor.description]
        rows = [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
    for row in rows:
        # jsonb arrives as text on Django's connections (JSONField decodes it itself).
        row["quantities"] = json.loads(row["quantities"])
        row["priority_parts"] = json.loads(row["priority_parts"]) if row["priority_parts"] is not None else None
    return rows


@dataclass(frozen=True)
class QueuePage:
    rows: list[dict[str, Any]]
    next_cursor: str | None
    is_first: bool


def queue_page(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], cursor: str | None, page_size: int) -> QueuePage:
    """One page of the queue after `cursor`, in one query (queue_page.sql inside the rows'
    QUEUE_ROWS_SQL); with a search, in the search's order (search_page). Fetches one row more
    than it shows to know whether there is a next page (the count is queue_count's)."""
    if (search := search_for(values)) is not None:
        return search_page(user=user, values=values, search=search, cursor=cursor, page_size=page_size)
    position = decode_cursor(cursor) if cursor else None
    page_sql, params = _queue_page_sql(user=user, values=values, position=position, limit=page_size + 1)
    rows = _queue_rows(page_sql, params)
    next_cursor = None
    if len(rows) > page_size:
        last = rows[page_size - 1]
        next_cursor = encode_cursor(last["total"], last["id"])
    return QueuePage(rows=rows[:page_size], next_cursor=next_cursor, is_first=position is None)


# The rows of positions already chosen (a search page's groups), ordered afterwards.
CHOSEN_POSITIONS_SQL = "SELECT * FROM unnest(%s::bigint[], %s::float8[], %s::float8[]) AS p(id, recency, total)"
HEADLINES_SQL = "SELECT id, {headline} FROM claims WHERE id = ANY(%s)"
# Whether any claim's own text has the words at all, whatever the other filters: one probe of
# the search index (claims migration 0023 says why it is a function).
ANY_SENTENCE_MATCHES_SQL = "SELECT claim_text_has_words({words})"


def phrase_differs(text: str) -> bool:
    """Whether the words as one phrase query differently from the search (Search.groups)."""
    return search_shape(text).phrase_differs


def in_order(text: str) -> bool:
    """Whether the search asks for words in order: a quoted phrase, or a hyphenated word
    ("covid-19"). The search index cannot tell such a query's matches from the claims that
    have the words anywhere, and PostgreSQL estimates it as the words anywhere: for a rare
    phrase of common words, a walk of the queue expecting dense matches reads the whole index."""
    return search_shape(text).in_order


SEARCH_SENTENCES_SQL = (Path(__file__).parent / "search_sentences.sql").read_text()
# A search's phrase and other-order groups are read in one go (search_sentences.sql) when it
# matches at most this many claims: reading each match once costs about what a walk of the
# queue costs per group up to here; past it, walking stops early where reading all would not.
SENTENCE_GROUPS_READ_MAX = 10_000
# The one group of a search in words' order (in_order) is read in one go when it matches at
# most this many claims. Reading it reads every claim with the words, in order or not, where a
# walk of the queue reads about a page's rows over the phrase's share of the queue: a rare
# phrase is read at once whatever its words (the cap counts matches, not the claims read); a
# dense one is walked after reading no more than this many matches.
IN_ORDER_READ_MAX = 2_000


# The other-order group of a search read in one go starts from the standing priority this many
# claims down the queue from the page's position (search_sentences.sql's `floor`): the matches
# above it are a few hundred for two common words, and a page of them is usually exact at once.
READ_FLOOR_RANK = 20_000
# Totals and priorities are floats: a claim whose total equals floor + weight must not be taken
# for one below the floor (in floating point (p + W) - W can exceed p).
FLOOR_MARGIN = 1e-6
FLOOR_SQL = "SELECT priority FROM claims WHERE priority <= %s ORDER BY priority DESC, id DESC OFFSET %s LIMIT 1"
# The floor from the top of the queue (a search's first page) is kept a while in each process,
# by rank: it is only where the read starts, and any floor gives the exact page, so one a
# minute old costs at most a second read.
TOP_FLOOR_SECONDS = 60.0
_top_floors: dict[int, tuple[float, float]] = {}  # rank: (time.monotonic() when read, floor)


def _read_floor(db: Any, *, below: float) -> float:
    """The standing priority READ_FLOOR_RANK claims down from `below` (-inf when fewer)."""
    rank, now = READ_FLOOR_RANK, time.monotonic()
    if below == math.inf and (kept := _top_floors.get(rank)) is not None and now - kept[0] < TOP_FLOOR_SECONDS:
        return kept[1]
    db.execute(FLOOR_SQL, [below, rank])
    floor: float = next(iter(db.fetchone() or ()), -math.inf)
    if below == math.inf:
        _top_floors[rank] = (now, floor)
    return floor


def _sentence_groups_read(
    db: Any, *, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], search: Search, phrase_group: bool,
    after: SearchPosition | None, limit: int,
) -> list[tuple[SearchPosition, float]] | None:
    """The next `limit` rows of a search's claim-text groups after `after` (search_sentences.sql):
    groups 0 and 1 with `phrase_group`, else the one group of a search in words' order. None
    when the search matches more claims than the cap for those groups.

    With `phrase_group` the other-order group is read from a floor down (the SQL's header says
    why that is exact when it is); a page that the floor leaves short is read again from the
    lowest floor it can need, or from none."""
    filters = filter_sql(values=values, user=user)
    phrase, phrase_params = phrase_sql(search=search) if phrase_group else ("TRUE", [])
    cap = SENTENCE_GROUPS_READ_MAX if phrase_group else IN_ORDER_READ_MAX
    sql = SEARCH_SENTENCES_SQL.format(phrase=phrase, in_sentence=filters.in_sentence, where=filters.where)
    group, total, pk = (after.group, after.total, after.pk) if after is not None else (-1, math.inf, MAX_ID)
    floor = -math.inf
    if phrase_group:
        # Claims above the position's total come before it whatever their recency.
        floor = _read_floor(db, below=total if group == 1 else math.inf)
    while True:
        db.execute(sql, [
            *phrase_params, *filters.in_sentence_params, *filters.where_params, floor,
            *filters.in_sentence_params, *filters.where_params, floor, *phrase_params,
            cap + 1, cap, group, group, total, pk, limit,
        ])
        found = db.fetchall()
        if found[0][0]:
            return None
        rows = [(SearchPosition(group=grp, total=row_total, pk=row_pk), recency) for _, _, row_pk, recency, row_total, grp in found if row_pk is not None]
        weight = found[0][1]
        last = rows[-1][0] if len(rows) == limit else None
        if floor == -math.inf or (last is not None and (last.group == 0 or last.total >= floor + weight + FLOOR_MARGIN)):
            return rows
        # Every match below the floor has a total under floor + weight; a full page's last row
        # bounds the page's lowest total from below, so nothing under it minus the weight can
        # reach the page, and the read from there is exact (its page's last total is at least as
        # high). A floor no lower than the last (floating point) reads everything instead.
        lower = last.total - weight - FLOOR_MARGIN if last is not None else -math.inf
        floor = lower if lower < floor else -math.inf


def _any_sentence_matches(db: Any, *, search: Search) -> bool:
    """Whether any claim's own text has the search's words, whatever the other filters."""
    words, words_params = words_sql(search=search)
    db.execute(ANY_SENTENCE_MATCHES_SQL.format(words=words), words_params)
    return bool(db.fetchone()[0])


def search_page(
    *, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], search: Search, cursor: str | None, page_size: int
) -> QueuePage:
    """A page of a search: its groups (Search.groups: the phrase matches, the other matches
    of the claim's own text, then with "in the whole article" the claims found through their
    article) one after the other, each paged in queue order by queue_page.sql; a group is read
    only once the ones before it are exhausted. Each row carries `highlight` ((text, matched)
    pieces of its sentence) and `found_in_article`."""
    after = decode_search_cursor(cursor) if cursor else None
    differs = phrase_differs(search.text)
    groups = search.groups(phrase_differs=differs)
    sentence_groups = 2 if differs else 1  # the groups of claims found by their own text
    with connection.cursor() as db:
        if after is not None and after.group >= len(groups):
            after = None
        limit = page_size + 1
        chosen: list[tuple[SearchPosition, float]] = []
        first_group = after.group if after else 0
        if first_group < sentence_groups and (differs or in_order(search.text)):
            read = _sentence_groups_read(db, user=user, values=values, search=search, phrase_group=differs, after=after, limit=limit)
            if read is not None:
                chosen, first_group = read, sentence_groups
        for number in range(first_group, len(groups)):
            if len(chosen) >= limit:
                break
            start = (after.total, after.pk) if after is not None and after.group == number else None
            if number == 0 and start is None and not differs and search.in_article is not None and not _any_sentence_matches(db, search=search):
                # "In the whole article" is mostly ticked for words the claims themselves lack:
                # one probe of the search index instead of planning and walking the empty group.
                continue
            group = group_filter_sql(values=values, user=user, search=search, phrase_differs=differs, number=number)
            sql, params = _page_sql_for(group, position=start, limit=limit - len(chosen))
            db.execute(sql, params)
            chosen += [(SearchPosition(group=number, total=total, pk=pk), recency) for pk, recency, total in db.fetchall()]
        shown = chosen[:page_size]
        ids = [at.pk for at, _ in shown]
        in_article = len(groups) - 1 if search.in_article is not None else None
        # A claim found through its article has none of the words in its own text: nothing to mark.
        headlines: dict[int, str] = {}
        if highlighted := [at.pk for at, _ in shown if at.group != in_article]:
            headline, headline_params = headline_sql(search=search)
            db.execute(HEADLINES_SQL.format(headline=headline), [*headline_params, highlighted])
            headlines = dict(db.fetchall())
    by_id = {row["id"]: row for row in _queue_rows(CHOSEN_POSITIONS_SQL, [ids, [r for _, r in shown], [p.total for p, _ in shown]])}
    rows = []
    for at, _ in shown:
        if (row := by_id.get(at.pk)) is not None:  # deleted between the two reads: left out
            row["highlight"] = highlighted_parts(headlines.get(at.pk) or "")
            row["found_in_article"] = at.group == in_article
            rows.append(row)
    next_cursor = encode_search_cursor(shown[-1][0]) if len(chosen) > page_size else None
    return QueuePage(rows=rows, next_cursor=next_cursor, is_first=after is None)


def next_in_view(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], claim_id: int, total: float) -> int | None:
    """The claim after this one in the view's own order: the queue's, or with a search its
    groups' (search_page), the claim taken in the first group it matches (where its row is)."""
    search = search_for(values)
    if search is None:
        found = queue_positions(user=user, values=values, position=(total, claim_id), limit=1)
        return found[0].id if found else None
    groups = search.groups(phrase_differs=phrase_differs(search.text))
    condition = claim_filter_q(values=values, user=user)
    group = next((number for number, found in enumerate(groups) if Claim.objects.filter(condition & found, pk=claim_id).exists()), None)
    # A claim that no longer matches the search goes on from the start of its results.
    cursor = encode_search_cursor(SearchPosition(group=group, total=total, pk=claim_id)) if group is not None else None
    page = search_page(user=user, values=values, search=search, cursor=cursor, page_size=1)
    return page.rows[0]["id"] if page.rows else None


# What the desk counts, named alike on every page, export and report (docs/exports.md,
# "What the counts count"): an *appearance* is one row of `claims` (a sentence in one
# article); a *claim* is a cluster of appearances that say the same thing, or an appearance
# in no cluster. The queue lists claims, one row each (filters.first_in_cluster: each
# cluster with a matching appearance is one row, whichever appearance it shows).
ROWS_COUNT = "count(*) FILTER (WHERE cluster_key = '') + count(DISTINCT cluster_key) FILTER (WHERE cluster_key <> '')"
COUNT_SQL = f"SELECT {ROWS_COUNT}, count(*) FROM claims WHERE {{where}} AND ({{in_sentence}} OR {{in_article}})"


class ClaimCount(Func):
    """ROWS_COUNT as an ORM aggregate: the claims among a queryset's appearances. Use it in
    values(...).annotate(...); QuerySet.aggregate() answered 0 with it (a Func without
    source expressions), so it is not used there."""

    template = ROWS_COUNT
    contains_aggregate = True
    output_field = IntegerField()


@dataclass(frozen=True)
class QueueCounts:
    claims: int  # the queue's rows
    appearances: int


def queue_count(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any]) -> int:
    """How many rows (claims) the queue lists under these filters."""
    return queue_counts(user=user, values=values).claims


def queue_counts(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any]) -> QueueCounts:
    """How many claims (the queue's rows) and appearances match these filters: the page's own
    compiled filters (filter_sql), counted exactly. A search lists each cluster once across
    its groups, so the count is the same."""
    filters = filter_sql(values=values, user=user)
    sql = COUNT_SQL.format(where=filters.where, in_sentence=filters.in_sentence, in_article=filters.in_article)
    params = [*filters.where_params, *filters.in_sentence_params, *filters.in_article_params]

    def count() -> QueueCounts:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            claims, appearances = cursor.fetchone()
            return QueueCounts(claims=int(claims), appearances=int(appearances))

    # Counting every matching cluster costs several pages' worth of SQL and every page asks
    # for it, but it only changes with QUEUE_CHANGES: kept under it, keyed by the compiled
    # query itself (so "mine" is each user's own).
    return QUEUE_CHANGES.cached("queue-counts:" + hashlib.sha256(repr((sql, params)).encode()).hexdigest(), count, QUEUE_CACHE_SECONDS)


def queue_row(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> dict[str, Any]:
    """One queue row (after a row action), in the queue's query shape."""
    if not has_role(user, Role.REVIEWER):
        raise Http404("No such claim.")
    rows = _queue_rows(ONE_CLAIM_SQL, [pk])
    if not rows:
        raise Http404("No such claim.")
    return rows[0]


def queue_claim_ids(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], limit: int) -> list[int]:
    """The ids of the claims matching the filters, in queue order, at most `limit`."""
    return [row.id for row in queue_positions(user=user, values=values, position=None, limit=limit)]


def claims_existing_ids(*, ids: list[int]) -> list[int]:
    """Those of `ids` still stored, in queue order."""
    return list(with_recency(Claim.objects.filter(pk__in=ids)).order_by("-total", "-id").values_list("id", flat=True))


@dataclass(frozen=True)
class QueueChoices:
    """What the queue page offers besides its rows, each as (id, name) in name order."""

    outlets: list[tuple[int, str]]
    assignees: list[tuple[int, str]]  # assignable_users()
    saved_views: list[tuple[int, str, str]]  # the user's own, each (id, name, query)
    # The newest article's "id@created_at": what the cached article metadata values are keyed
    # by (with its time, an id reused by a database made anew is not taken for the old one).
    newest_article: str | None


# One round trip for the three lists and the newest article's id (three ORM queries cost 1.5 ms
# of CPU a page, this 0.25).
QUEUE_CHOICES_SQL = """
SELECT (SELECT coalesce(json_agg(json_build_array(id, name) ORDER BY name), '[]') FROM outlets),
       (SELECT coalesce(json_agg(json_build_array(u.id, u.username) ORDER BY u.username), '[]')
          FROM auth_user u
         WHERE u.is_active AND EXISTS (SELECT FROM auth_user_groups ug JOIN auth_group g ON g.id = ug.group_id
                                        WHERE ug.user_id = u.id AND g.name = ANY(%s))),
       (SELECT coalesce(json_agg(json_build_array(id, name, query) ORDER BY name), '[]') FROM saved_views WHERE user_id = %s),
       (SELECT id || '@' || extract(epoch FROM created_at) FROM articles ORDER BY id DESC LIMIT 1)
"""


def queue_choices(*, user: AbstractBaseUser | AnonymousUser) -> QueueChoices:
    with connection.cursor() as cursor:
        cursor.execute(QUEUE_CHOICES_SQL, [list(GROUP_FOR_ROLE.values()), user.pk])
        outlets, assignees, saved_views, newest_article = cursor.fetchone()
    return QueueChoices(
        outlets=[(pk, name) for pk, name in outlets],
        assignees=[(pk, name) for pk, name in assignees],
        saved_views=[(pk, name, query) for pk, name, query in saved_views],
        newest_article=newest_article,
    )


# --- What is waiting for the user: "My claims" and the editor's approvals ----------------------


def verdicts_awaiting_approval_q(*, user: AbstractBaseUser | AnonymousUser) -> Q:
    """Drafted verdicts `user` may approve: awaiting approval and none of their text theirs
    (services.verdict_approve's two-person rule)."""
    return Q(status=Verdict.Status.DRAFT) & Verdict.not_written_by(user)


def verdicts_awaiting_approval(*, user: AbstractBaseUser | AnonymousUser) -> list[Verdict]:
    """The editor's inbox, longest waiting first."""
    if not has_role(user, Role.EDITOR):
        return []
    return list(
        Verdict.objects.filter(verdicts_awaiting_approval_q(user=user))
        .select_related("claim", "claim__article__outlet", "author")
        .defer("claim__article__text", "claim__article__search", "claim__search")
        .order_by("updated_at", "id")
    )


# A reviewer's inbox lists this many claims; the rest are in the queue's "My claims".
INBOX_MAX_CLAIMS = 200


@dataclass(frozen=True)
class InboxEntry:
    claim: Claim
    returned_comment: str  # the editor's, when the verdict was sent back; "" otherwise


@dataclass(frozen=True)
class Inbox:
    returned: list[InboxEntry]  # verdicts sent back to me (I wrote them, or hold the claim)
    assigned: list[InboxEntry]  # the rest of my claims still to do
    more: bool  # past INBOX_MAX_CLAIMS


def inbox_for(*, user: AbstractBaseUser | AnonymousUser) -> Inbox:
    """"My work": what was assigned to me and is still to do (MY_CLAIMS_VALUES's statuses), and
    every claim whose verdict came back to me, returned first, then by standing priority. One
    entry a cluster: its appearances share the cluster's state."""
    returned_to_me = Verdict.objects.filter(claim__cluster_key=OuterRef("cluster_key"), status=Verdict.Status.RETURNED).filter(
        Q(author_id=user.pk) | Q(contributor_ids__contains=[user.pk])
    )
    returned_own = Verdict.objects.filter(claim_id=OuterRef("pk"), status=Verdict.Status.RETURNED).filter(
        Q(author_id=user.pk) | Q(contributor_ids__contains=[user.pk])
    )
    mine = Q(assignee_id=user.pk, status__in=MY_CLAIMS_VALUES["status"])
    back_to_me = Q(status=Claim.Status.RETURNED) & (Exists(returned_own) | (~Q(cluster_key="") & Exists(returned_to_me)))
    claims = list(
        Claim.objects.filter(mine | back_to_me)
        .select_related("article__outlet", "assignee")
        .defer("article__text", "article__search", "search")
        .order_by("-priority", "id")[: INBOX_MAX_CLAIMS * 4]
    )
    seen: set[str] = set()
    first_of_cluster = []
    for claim in claims:
        unit = claim.cluster_key or f"#{claim.pk}"
        if unit not in seen:
            seen.add(unit)
            first_of_cluster.append(claim)
    # Read to its limit, the appearances may hide more clusters than were kept.
    more = len(first_of_cluster) > INBOX_MAX_CLAIMS or len(claims) == INBOX_MAX_CLAIMS * 4
    first_of_cluster = first_of_cluster[:INBOX_MAX_CLAIMS]
    # The editor's comment, from whichever appearance of the cluster the verdict was written on.
    sent_back = [c for c in first_of_cluster if c.status == Claim.Status.RETURNED]
    comments: dict[str, str] = {}
    found = (
        Verdict.objects.filter(
            Q(claim__cluster_key__in=[c.cluster_key for c in sent_back if c.cluster_key]) | Q(claim_id__in=[c.pk for c in sent_back if not c.cluster_key]),
            status=Verdict.Status.RETURNED,
        )
        .order_by("-updated_at", "-id")
        .values_list("claim__cluster_key", "claim_id", "review_comment")
    )
    for cluster_key, claim_id, comment in found:
        comments.setdefault(cluster_key or f"#{claim_id}", comment)
    returned = [InboxEntry(c, comments.get(c.cluster_key or f"#{c.pk}", "")) for c in sent_back]
    assigned = [InboxEntry(c, "") for c in first_of_cluster if c.status != Claim.Status.RETURNED]
    return Inbox(returned=returned, assigned=assigned, more=more)


@dataclass(frozen=True)
class WorkCounts:
    my_claims_left: int  # MY_CLAIMS_VALUES: the queue's "My claims" view counts the same
    awaiting_my_approval: int | None  # None for anyone who approves nothing


# Short on purpose: both conditions come compiled from the ORM conditions the pages use.
WORK_COUNTS_SQL = f"SELECT (SELECT {ROWS_COUNT} FROM claims WHERE {{mine}}), (SELECT count(*) FROM verdicts WHERE {{awaiting}})"


def work_counts(*, user: AbstractBaseUser | AnonymousUser) -> WorkCounts:
    """The navigation's counts, in one query."""
    mine, mine_params = compiled_condition(claim_filter_q(values=MY_CLAIMS_VALUES, user=user))
    is_editor = has_role(user, Role.EDITOR)
    awaiting, awaiting_params = compiled_condition(verdicts_awaiting_approval_q(user=user), model=Verdict) if is_editor else ("FALSE", [])
    with connection.cursor() as cursor:
        cursor.execute(WORK_COUNTS_SQL.format(mine=mine, awaiting=awaiting), [*mine_params, *awaiting_params])
        left, waiting = cursor.fetchone()
    return WorkCounts(my_claims_left=left, awaiting_my_approval=waiting if is_editor else None)


# An upper bound on how long a count can outlive a change that missed QUEUE_CHANGES.
QUEUE_CACHE_SECONDS = 60


def work_counts_cached(*, user: AbstractBaseUser | AnonymousUser) -> WorkCounts:
    """work_counts as every page's navigation shows them: cached per user under
    QUEUE_CHANGES, since counting a reviewer's claims costs more than the rest of a queue
    page's SQL; any audited change (an assignment, a decision, a verdict) is seen by the next page."""
    return QUEUE_CHANGES.cached(f"work-counts:{user.pk}", lambda: work_counts(user=user), QUEUE_CACHE_SECONDS)


def saved_views_for(*, user: User) -> list[SavedView]:
    return list(SavedView.objects.filter(user_id=user.pk).only("id", "name", "query").order_by("name"))


def saved_view_get_for_user(*, user: User, pk: int) -> SavedView:
    """The access helper: a saved view is its owner's; anyone else gets 404."""
    try:
        return SavedView.objects.get(pk=pk, user_id=user.pk)
    except SavedView.DoesNotExist as exc:
        raise Http404("No such saved view.") from exc


def bulk_action_get_for_user(*, user: User, pk: int) -> BulkAction:
    """The access helper: a bulk action is seen by whoever started it, and by admins."""
    actions = BulkAction.objects.all() if has_role(user, Role.ADMIN) else BulkAction.objects.filter(user_id=user.pk)
    try:
        return actions.defer("claim_ids").get(pk=pk)
    except BulkAction.DoesNotExist as exc:
        raise Http404("No such bulk action.") from exc



def ranking_weights_current() -> RankingWeights:
    """The weights the queue is ranked with: the stored row, or (none stored) the defaults
    claim_priority_parts falls back to, unsaved, as version 0."""
    return RankingWeights.objects.filter(pk=1).first() or RankingWeights(pk=1, weights=dict(DEFAULT_RANKING_WEIGHTS), version=0)


def ranking_basis_version() -> int | None:
    """The version of the weights the stored priorities were computed with (the re-rank and
    the pipeline's merge record it once done), or None before any: while it lags the current
    version, a re-rank is under way (or its task is still to run)."""
    return PriorityBasis.objects.order_by("id").values_list("weights_version", flat=True).first()


def ranking_weights_changes(*, limit: int = 10) -> list[AuditEvent]:
    """The latest changes of the ranking weights, newest first."""
    return list(AuditEvent.objects.filter(object_type="ranking_weights").select_related("actor").order_by("-created_at", "-id")[:limit])
