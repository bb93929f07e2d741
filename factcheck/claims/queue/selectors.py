"""Reads for the triage queue: its pages, counts, choices, next claim, rows, inbox and saved views."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db import connection
from django.db.models import Case, Count, Exists, F, Func, IntegerField, OuterRef, Q, QuerySet, TextField, Value, When
from django.db.models.functions import Left
from django.http import Http404

from factcheck.accounts.roles import GROUP_FOR_ROLE, Role, has_role
from factcheck.cache import QUEUE_CHANGES
from factcheck.claims.models import OPEN_STATUSES, BulkAction, Claim, ClaimCluster, SavedView, Verdict
from factcheck.claims.queue.filters import (
    MY_CLAIMS_VALUES,
    NOTHING,
    QUEUE_ORDER,
    Position,
    Search,
    after_position,
    appearance_q,
    claim_filter_q,
    claims_filtered,
    decode_cursor,
    encode_cursor,
    first_in_cluster,
    highlighted_parts,
    search_for,
)
from factcheck.claims.ranking.selectors import recency_of_rank
from factcheck.postgres.base import prepared, serial_plans

# --- The triage queue ----------------------------------------------------------------------
#
# The queue is plain querysets over the stored order (Claim.queue_rank, then id, descending:
# claim_queue_order_idx), paged by keyset: a page reads down the index from the cursor, checks
# each claim against the filters and keeps one row per cluster (filters.first_in_cluster),
# until the page is full.


def plan_reusable(values: dict[str, Any]) -> bool:
    """Whether the queue under these filters may reuse one plan (factcheck/postgres/base.py):
    the default view, which every reviewer opens, whose plan is a walk down the stored order
    from the cursor whatever its values. A chosen filter is planned for its values: an outlet
    with ten claims is best found through its articles, one with ten thousand down the order."""
    return all(value in (None, "", []) for value in values.values())


def queue_view(values: dict[str, Any]) -> dict[str, Any]:
    """The filter values as the queue reads them: without a status filter, the work still to
    do (OPEN_STATUSES: not dismissed, not approved) is the default view."""
    return values if values.get("status") else {**values, "status": list(OPEN_STATUSES)}


def _article_heading() -> Left:
    """The article's title, or its first line when it has none, so its whole text never leaves
    the database."""
    first_line = Func(F("article__text"), Value("\n"), Value(1), function="split_part", output_field=TextField())
    return Left(Case(When(article__title="", then=first_line), default=F("article__title"), output_field=TextField()), 110)


def queue_row_values(claims: QuerySet[Claim]) -> QuerySet[Claim, Any]:
    """A queue row: what each shows and nothing more (an article's text and the search vectors
    are the bulk of a row's bytes), with its cluster's size and outlets."""
    return claims.values(
        "id", "sentence", "claim_type", "quantities", "speaker", "speaker_title", "score", "priority", "priority_parts", "article_id",
        cluster_key=F("cluster_id"), status=F("cluster__status"), dismiss_reason=F("cluster__dismiss_reason"), tags=F("cluster__tags"),
        version=F("cluster__version"), assignee_id=F("cluster__assignee_id"), assignee_username=F("cluster__assignee__username"),
        cluster_size=F("cluster__size"), cluster_outlets=F("cluster__outlet_count"),
        total=F("queue_rank"), recency=recency_of_rank(), outlet_name=F("article__outlet__name"),
        article_heading=_article_heading(),
    )


# The two shapes a walk reads, each resolved once and never read itself: every read filters a
# copy (QuerySet.filter clones), so a page resolves its conditions only, not the row's twenty
# columns and four joins as well (about as much CPU as compiling the statement they are in).
# They hold no values, only a statement's shape.


@functools.cache
def _row_columns() -> QuerySet[Claim, Any]:
    """queue_row_values, unordered (a walk orders; a read by id keeps the walk's order)."""
    return queue_row_values(Claim.objects.order_by())


@functools.cache
def _positions() -> QuerySet[Claim, Any]:
    """A row's place in the order: its `id` and `total` (the queue_rank)."""
    return Claim.objects.order_by().values("id", total=F("queue_rank"))


def _groups(
    *, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], columns: QuerySet[Claim, Any]
) -> tuple[Search | None, list[QuerySet[Claim, Any]]]:
    """The queue's rows as querysets of `columns` in queue order, listed one after the other:
    one without a search, one per group of a search (Search.groups). A cluster is one row, its
    best-ranked matching appearance in the first group that holds one."""
    condition = claim_filter_q(values=values, user=user)
    # Which of a cluster's appearances is its row: the cluster's state is every appearance's.
    own = appearance_q(values=values)
    search = search_for(values)
    if search is None:
        return None, [columns.filter(condition, first_in_cluster(own)).order_by(*QUEUE_ORDER)]
    listed: list[QuerySet[Claim, Any]] = []
    earlier: Q | None = None  # the groups before, those that can match
    for group in search.groups:
        if group is NOTHING:
            listed.append(columns.none())
            continue
        claims = columns.filter(condition & group, first_in_cluster(own & group))
        if earlier is not None:
            shown = Exists(Claim.objects.filter(own & earlier, cluster_id=OuterRef("cluster_id")))
            claims = claims.filter(~Q(shown))
        listed.append(claims.order_by(*QUEUE_ORDER))
        earlier = group if earlier is None else earlier | group
    return search, listed


def _walk(
    *, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], after: Position | None, limit: int, rows_shown: bool = False,
) -> tuple[Search | None, list[dict[str, Any]]]:
    """The first `limit` rows after `after`, each its place (_positions) or with `rows_shown`
    what the row shows (_row_columns), and `group` (0 without a search); a group is read only
    once the ones before it are exhausted."""
    search, groups = _groups(user=user, values=values, columns=_row_columns() if rows_shown else _positions())
    if after is not None and ((after.group is None) != (search is None) or (after.group or 0) >= len(groups)):
        after = None  # a cursor of another view: start over
    first = after.group or 0 if after is not None else 0
    rows: list[dict[str, Any]] = []
    with serial_plans():
        for number in range(first, len(groups)):
            claims = groups[number]
            if after is not None and number == first:
                claims = after_position(claims, (after.rank, after.pk))
            for row in claims[: limit - len(rows)]:
                rows.append({**row, "group": number})
            if len(rows) >= limit:
                break
    return search, rows


@dataclass(frozen=True)
class QueuePage:
    rows: list[dict[str, Any]]
    next_cursor: str | None
    is_first: bool


def _rows_shown(found: list[dict[str, Any]], search: Search | None) -> list[dict[str, Any]]:
    """The display values (queue_row_values) of the rows a filtered or searched walk found, in
    its order, read by id in one statement prepared on the connection: its plan (primary keys
    and the row's joins) is the same whatever the filters, so PostgreSQL plans it once, and the
    walk's own statement, planned for each filter's values, carries only the filters and the
    order: a smaller plan, and a search's headline computed for the rows shown only. A claim
    deleted between the two reads is left out."""
    if not found:
        return []
    in_article = search.found_in_article_group if search is not None else None
    words = search if search is not None and any(row["group"] != in_article for row in found) else None
    claims = _row_columns().filter(pk__in=[row["id"] for row in found])
    if words is not None:
        claims = claims.annotate(headline=words.headline)
    with prepared():
        by_id = {row["id"]: row for row in claims}
    return [{**by_id[row["id"]], "group": row["group"]} for row in found if row["id"] in by_id]


def queue_page(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], cursor: str | None, page_size: int) -> QueuePage:
    """One page of the queue after `cursor` (queue_view's filters). Reads one row more than it
    shows to know whether there is a next page (the count is queue_counts'). With a search each
    row carries `highlight` ((text, matched) pieces of its sentence) and `found_in_article`."""
    after = decode_cursor(cursor) if cursor else None
    if plan_reusable(values):
        # The default view: one statement reads the rows with their columns, prepared, planned
        # once (a second statement by id would cost more than it saves there).
        with prepared():
            search, found = _walk(user=user, values=queue_view(values), after=after, limit=page_size + 1, rows_shown=True)
        shown = found[:page_size]
    else:
        search, found = _walk(user=user, values=queue_view(values), after=after, limit=page_size + 1)
        shown = _rows_shown(found[:page_size], search)
    if search is not None:
        in_article = search.found_in_article_group
        for row in shown:
            # A claim found through its article has none of the words in its own text: nothing to mark.
            row["found_in_article"] = row["group"] == in_article
            row["highlight"] = [] if row["found_in_article"] else highlighted_parts(row["headline"] or "")
    next_cursor = None
    if len(found) > page_size:
        last = found[page_size - 1]
        next_cursor = encode_cursor(last["total"], last["id"], group=last["group"] if search is not None else None)
    return QueuePage(rows=shown, next_cursor=next_cursor, is_first=after is None)


def next_in_view(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], claim_id: int, total: float) -> int | None:
    """The claim after this one in the view's own order (`total`: its queue_rank when the view
    showed it); with a search, after it in the first group it matches (where its row is)."""
    values = queue_view(values)
    group = None
    if (search := search_for(values)) is not None:
        condition = claim_filter_q(values=values, user=user)
        group = next((n for n, found in enumerate(search.groups) if Claim.objects.filter(condition & found, pk=claim_id).exists()), None)
        if group is None:  # no longer matches the search: from the start of its results
            _, rows = _walk(user=user, values=values, after=None, limit=1)
            return rows[0]["id"] if rows else None
    _, rows = _walk(user=user, values=values, after=Position(rank=total, pk=claim_id, group=group), limit=1)
    return rows[0]["id"] if rows else None


def queue_claim_ids(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], limit: int) -> list[int]:
    """The ids of the queue's rows under these filters, in queue order, at most `limit`."""
    return [row["id"] for row in _walk(user=user, values=queue_view(values), after=None, limit=limit)[1]]


def claims_existing_ids(*, ids: list[int]) -> list[int]:
    """Those of `ids` still stored, in queue order."""
    return list(Claim.objects.filter(pk__in=ids).order_by(*QUEUE_ORDER).values_list("id", flat=True))


def queue_row(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> dict[str, Any]:
    """One queue row (after a row action), in the queue's row shape."""
    if not has_role(user, Role.REVIEWER):
        raise Http404("No such claim.")
    row = _row_columns().filter(pk=pk).first()
    if row is None:
        raise Http404("No such claim.")
    return row


# What a queue row's "3 outlets" expands to (views.queue_row_appearances, asked for when it is
# opened): the cluster's appearances best-ranked first, at most `limit` (the claim page lists
# them all), and how many there are.
ROW_APPEARANCES_SQL = """
SELECT m.id, mo.name AS outlet_name, left(CASE WHEN ma.title = '' THEN split_part(ma.text, E'\\n', 1) ELSE ma.title END, 110) AS article_heading,
       count(*) OVER () AS size
FROM claims AS c
JOIN claims AS m ON m.cluster_key = c.cluster_key
JOIN articles AS ma ON ma.id = m.article_id
LEFT JOIN outlets AS mo ON mo.id = ma.outlet_id
WHERE c.id = %s
ORDER BY m.queue_rank DESC, m.id DESC
LIMIT %s
"""


@dataclass(frozen=True)
class RowAppearance:
    pk: int
    outlet_name: str | None
    article_heading: str


def row_appearances(*, claim_id: int, limit: int) -> tuple[list[RowAppearance], int]:
    """The first `limit` appearances of the claim's cluster in queue order, and how many it has
    (a claim alone: itself, 1)."""
    with connection.cursor() as cursor:
        cursor.execute(ROW_APPEARANCES_SQL, [claim_id, limit])
        found = cursor.fetchall()
    return [RowAppearance(pk, outlet, heading or "") for pk, outlet, heading, _ in found], (found[0][3] if found else 0)


# What the desk counts, named alike on every page, export and report (docs/exports.md,
# "What the counts count"): an *appearance* is one row of `claims` (a sentence in one
# article); a *claim* is a cluster of appearances that say the same thing (one of one for an
# appearance alone). The queue lists claims, one row each.
# (Qualified: a filter on the cluster's state joins claim_clusters, which has the column too.)
ROWS_COUNT = "count(DISTINCT claims.cluster_key)"


class ClaimCount(Func):
    """ROWS_COUNT as an ORM aggregate: the claims among a queryset's appearances. Use it in
    values(...).annotate(...); QuerySet.aggregate() answered 0 with it (a Func without
    source expressions), so it is not used there (claims_count is)."""

    template = ROWS_COUNT
    contains_aggregate = True
    output_field = IntegerField()


def claims_count(claims: QuerySet[Claim]) -> QueueCounts:
    """The claims (clusters) and appearances of a queryset."""
    found = claims.aggregate(clusters=Count("cluster_id", distinct=True), appearances=Count("id"))
    return QueueCounts(claims=found["clusters"], appearances=found["appearances"])


@dataclass(frozen=True)
class QueueCounts:
    claims: int  # the queue's rows
    appearances: int


def queue_count(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any]) -> int:
    """How many rows (claims) the queue lists under these filters."""
    return queue_counts(user=user, values=values).claims


def queue_counts(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any]) -> QueueCounts:
    """How many claims (the queue's rows) and appearances match these filters (queue_view's),
    counted exactly. A search lists each cluster once across its groups, so the count is the same."""
    values = queue_view(values)
    # Counting every matching cluster reads every match, and every page asks for it, but it only
    # changes with QUEUE_CHANGES: kept under it, keyed by the filters and (for "mine") the user.
    key = hashlib.sha256(repr((sorted((k, repr(v)) for k, v in values.items()), user.pk)).encode()).hexdigest()
    return QUEUE_CHANGES.cached(
        "queue-counts:" + key, lambda: claims_count(claims_filtered(Claim.objects.all(), values=values, user=user)), QUEUE_CACHE_SECONDS
    )


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
    with prepared(), connection.cursor() as cursor:
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
# What an inbox entry shows (templates/jinja2/claims/inbox.html), and the keys that reach it.
INBOX_FIELDS = (
    "id", "sentence", "priority", "cluster_id", "article_id", "article__outlet_id", "article__outlet__name",
    "cluster__cluster_key", "cluster__status", "cluster__assignee_id", "cluster__assignee__username",
)


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
    entry a cluster (its appearances share the cluster's state): the appearance with the highest
    priority, ties to the smallest id, chosen in the database (DISTINCT ON), and read with only
    what the page shows: a reviewer holding thousands of appearances costs the page the
    INBOX_MAX_CLAIMS entries it lists, not a model instance for each appearance and relation."""
    returned_to_me = Verdict.objects.filter(claim__cluster_id=OuterRef("cluster_key"), status=Verdict.Status.RETURNED).filter(
        Q(author_id=user.pk) | Q(contributor_ids__contains=[user.pk])
    )
    mine = Q(assignee_id=user.pk, status__in=MY_CLAIMS_VALUES["status"])
    back_to_me = Q(status=Claim.Status.RETURNED) & Exists(returned_to_me)
    # The clusters first (their assignee and status indexes), then their appearances through
    # claim_cluster_key_idx: the same condition written on the appearances read all of `claims`.
    my_clusters = ClaimCluster.objects.filter(mine | back_to_me).values("cluster_key")
    first_of_cluster = Claim.objects.filter(cluster_id__in=my_clusters).order_by("cluster_id", "-priority", "id").distinct("cluster_id")
    claims = list(
        Claim.objects.filter(pk__in=first_of_cluster.values("id"))
        .select_related("article__outlet", "cluster__assignee")
        .only(*INBOX_FIELDS)
        .order_by("-priority", "id")[: INBOX_MAX_CLAIMS + 1]
    )
    more, claims = len(claims) > INBOX_MAX_CLAIMS, claims[:INBOX_MAX_CLAIMS]
    # The editor's comment, from whichever appearance of the cluster the verdict was written on.
    sent_back = [c for c in claims if c.cluster.status == Claim.Status.RETURNED]
    comments: dict[str, str] = {}
    found = (
        Verdict.objects.filter(
            claim__cluster__cluster_key__in=[c.cluster_id for c in sent_back], status=Verdict.Status.RETURNED
        )
        .order_by("-updated_at", "-id")
        .values_list("claim__cluster__cluster_key", "review_comment")
    )
    for cluster_key, comment in found:
        comments.setdefault(cluster_key, comment)
    returned = [InboxEntry(c, comments.get(c.cluster_id, "")) for c in sent_back]
    assigned = [InboxEntry(c, "") for c in claims if c.cluster.status != Claim.Status.RETURNED]
    return Inbox(returned=returned, assigned=assigned, more=more)


@dataclass(frozen=True)
class WorkCounts:
    my_claims_left: int  # MY_CLAIMS_VALUES: the queue's "My claims" view counts the same
    awaiting_my_approval: int | None  # None for anyone who approves nothing


def work_counts(*, user: AbstractBaseUser | AnonymousUser) -> WorkCounts:
    """The navigation's counts."""
    left = claims_count(Claim.objects.filter(claim_filter_q(values=MY_CLAIMS_VALUES, user=user))).claims
    if not has_role(user, Role.EDITOR):
        return WorkCounts(my_claims_left=left, awaiting_my_approval=None)
    return WorkCounts(my_claims_left=left, awaiting_my_approval=Verdict.objects.filter(verdicts_awaiting_approval_q(user=user)).count())


# An upper bound on how long a count can outlive a change that missed QUEUE_CHANGES.
QUEUE_CACHE_SECONDS = 60


def work_counts_cached(*, user: AbstractBaseUser | AnonymousUser) -> WorkCounts:
    """work_counts as every page's navigation shows them: cached per user under
    QUEUE_CHANGES; any audited change (an assignment, a decision, a verdict) is seen by the next page."""
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
