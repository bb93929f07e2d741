"""Reads for the fact-check library: a claim's matches, the queue's "checked before", the
citations of a ClaimReview, and the import pages."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection
from django.db.models import BooleanField, Case, F, IntegerField, Q, QuerySet, Value
from django.db.models import When as When_
from django.db.models.functions import TruncDate
from django.http import Http404

from factcheck.accounts.roles import Role, has_role
from factcheck.claims.models import Claim, Evidence
from factcheck.factchecks.models import ClaimMatch, FactCheck, FactCheckImport
from factcheck.factchecks.ratings import verdict_rating_for
from factcheck.postgres.base import prepared

ERRORS_SHOWN = 20


def claim_matches_for(*, claim: Claim) -> list[ClaimMatch]:
    """A claim's matches for its page: confirmed first, then by rank; rejected ones last. Each
    carries `when` (checked_when: its fact-check's date against the claim's article's)."""
    order = {ClaimMatch.Status.CONFIRMED: 0, ClaimMatch.Status.SUGGESTED: 1, ClaimMatch.Status.REJECTED: 2}
    matches = list(ClaimMatch.objects.filter(claim=claim).select_related("factcheck", "decided_by", "claim__article"))
    for match in matches:
        when = checked_when(checked_on=match.factcheck.published_on, claim_published_at=match.claim.article.published_at)
        match.when = when  # type: ignore[attr-defined]
    return sorted(matches, key=lambda match: (order[ClaimMatch.Status(match.status)], match.rank, -match.score, match.pk))


def claim_match_get_for_user(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> ClaimMatch:
    """The access helper: a match is visible with its claim, to reviewers and up; 404 otherwise."""
    if not has_role(user, Role.REVIEWER):
        raise Http404("No such match.")
    try:
        return ClaimMatch.objects.select_related("claim", "factcheck").get(pk=pk)
    except ClaimMatch.DoesNotExist as exc:
        raise Http404("No such match.") from exc


def claim_match_for_prefill(*, claim: Claim, pk: int | None) -> ClaimMatch | None:
    """The confirmed match of this claim a verdict starts from, or None."""
    if pk is None:
        return None
    return ClaimMatch.objects.select_related("factcheck").filter(pk=pk, claim=claim, status=ClaimMatch.Status.CONFIRMED).first()


class When(StrEnum):
    """A fact-check's date against the claim's first appearance (its article's publication)."""

    BEFORE = "before"
    SAME_DAY = "same day"
    AFTER = "after"
    UNKNOWN = "unknown"


def checked_when(*, checked_on: date | None, claim_published_at: datetime | None) -> When:
    """Whether a fact-check was published before the claim appeared. Both dates come from their
    sources (the check's own date; the article's from its import or page metadata, never the
    time it was imported); either unknown, and nobody can say "before"."""
    if checked_on is None or claim_published_at is None:
        return When.UNKNOWN
    appeared = claim_published_at.astimezone(UTC).date()
    if checked_on < appeared:
        return When.BEFORE
    return When.SAME_DAY if checked_on == appeared else When.AFTER


def checked_before_q(*, min_score: float | None = None) -> Q:
    """The claim matches that make a claim "Checked before" (the queue's badge and its
    checked_before filter, claims.queue.filters): a confirmed match or a suggestion from
    FACTCHECK_CHECKED_BEFORE_MIN_SCORE (a rejected one never), whose fact-check was not
    published after the claim's article (checked_when: "after" never counts; a same-day or an
    unknown date counts, and the page says which)."""
    if min_score is None:
        min_score = settings.FACTCHECK_CHECKED_BEFORE_MIN_SCORE
    shown = Q(status=ClaimMatch.Status.CONFIRMED) | Q(status=ClaimMatch.Status.SUGGESTED, score__gte=min_score)
    not_after = (
        Q(factcheck__published_on__isnull=True)
        | Q(claim__article__published_at__isnull=True)
        | Q(factcheck__published_on__lte=TruncDate("claim__article__published_at", tzinfo=UTC))
    )
    return shown & not_after


class CheckedBefore(NamedTuple):
    publisher: str
    rating: str
    date: date | None
    # A reviewer confirmed the match; otherwise it is the matcher's suggestion.
    confirmed: bool = False
    when: When = When.UNKNOWN


@functools.cache
def _checked_before_matches(min_score: float) -> QuerySet[ClaimMatch, tuple[Any, ...]]:
    """What claims_checked_before reads, over every claim, never read itself: each page filters
    a copy by its claims (QuerySet.filter clones), so it does not resolve the rule's joins and
    the statement's columns again. Made per minimum score, the one setting the rule reads."""
    confirmed = Case(When_(status=ClaimMatch.Status.CONFIRMED, then=Value(True)), default=Value(False), output_field=BooleanField())
    return (
        ClaimMatch.objects.filter(checked_before_q(min_score=min_score))
        .annotate(is_confirmed=confirmed)
        .order_by("claim_id", "-is_confirmed", "rank", "-score", "id")
        .distinct("claim_id")
        .values_list(
            "claim_id", "factcheck__publisher", "factcheck__rating_text", "factcheck__rating_value", "factcheck__published_on",
            "is_confirmed", "claim__article__published_at",
        )
    )


def claims_checked_before(claim_ids: Iterable[int]) -> dict[int, CheckedBefore]:
    """{claim id: (publisher, rating, date, confirmed, when)} for the claims checked_before_q
    counts (the queue's "Checked before" badge), the one match each: a confirmed one before a
    suggestion, then the best ranked. One indexed pass over the page's claims. The rating is
    the publisher's words, or "n of 5" on our scale."""
    ids = list(claim_ids)
    if not ids:
        return {}
    found = _checked_before_matches(settings.FACTCHECK_CHECKED_BEFORE_MIN_SCORE).filter(claim_id__in=ids)
    # One plan for any page's claims: the match index by claim.
    with prepared():
        rows = list(found)
    return {
        claim_id: CheckedBefore(
            publisher=publisher, rating=rating_text or (f"{rating_value} of 5" if rating_value else ""), date=published_on, confirmed=is_confirmed,
            when=checked_when(checked_on=published_on, claim_published_at=article_published_at),
        )
        for claim_id, publisher, rating_text, rating_value, published_on, is_confirmed, article_published_at in rows
    }


def citations_for_claims(claim_ids: Iterable[int]) -> dict[int, list[FactCheck]]:
    """The earlier fact-checks each claim's ClaimReview cites: its confirmed matches."""
    cited: dict[int, list[FactCheck]] = {}
    matches = (
        ClaimMatch.objects.filter(claim_id__in=list(claim_ids), status=ClaimMatch.Status.CONFIRMED)
        .select_related("factcheck")
        .order_by("claim_id", "rank", "id")
    )
    for match in matches:
        cited.setdefault(match.claim_id, []).append(match.factcheck)
    return cited


# --- Imports -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportProgress:
    batch: FactCheckImport
    errors_shown: list[dict[str, object]]
    errors_listed: int
    # The import's entries still waiting for the queue's claims to be matched against them
    # (services.factchecks_match_new clears each once matched): the page says "being matched"
    # while there are some, and that matching is done once there are none.
    matching_pending: int = 0

    @property
    def is_settled(self) -> bool:
        """Nothing left to report: the import finished and its entries are matched."""
        return self.batch.is_finished and not self.matching_pending


def import_progress(*, import_id: int) -> ImportProgress | None:
    batch = FactCheckImport.objects.defer("errors").select_related("created_by").filter(pk=import_id).first()
    if batch is None:
        return None
    # The error list can be long; only its length and first entries leave the database.
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT jsonb_array_length(errors), jsonb_path_query_array(errors, %s::jsonpath) FROM {FactCheckImport._meta.db_table} WHERE id = %s",
            [f"$[0 to {ERRORS_SHOWN - 1}]", import_id],
        )
        listed, shown = cursor.fetchone()
    shown_list = json.loads(shown) if isinstance(shown, str) else list(shown or [])
    pending = 0
    if batch.status == FactCheckImport.Status.DONE:
        pending = FactCheck.objects.filter(import_batch_id=batch.pk, match_pending_since__isnull=False).count()
    return ImportProgress(batch=batch, errors_shown=shown_list, errors_listed=listed, matching_pending=pending)


def imports_recent(*, limit: int = 20) -> list[FactCheckImport]:
    return list(FactCheckImport.objects.defer("errors")[:limit])


def library_size() -> int:
    return FactCheck.objects.count()


def verdict_initial_from_match(*, match: ClaimMatch, evidence: list[Evidence], current: dict[str, Any]) -> dict[str, Any]:
    """The verdict form's starting values from a confirmed match: the rating mapped from the
    earlier fact-check's, a headline and an explanation that cite it (before any text
    already drafted, which is kept), and the evidence entry made from it, ticked."""
    factcheck = match.factcheck
    initial: dict[str, Any] = {}
    rating = verdict_rating_for(rating_text=factcheck.rating_text, rating_value=factcheck.rating_value)
    if rating is not None:
        initial["rating"] = rating
    when = f" on {factcheck.published_on.isoformat()}" if factcheck.published_on else ""
    rated = f" and rated it “{factcheck.rating_text}”" if factcheck.rating_text else ""
    cite = f"{factcheck.publisher} checked this claim{when}{rated}: “{factcheck.claim}”"
    cite += f" ({factcheck.url})." if factcheck.url else "."
    drafted = str(current.get("explanation") or "")
    initial["explanation"] = drafted if cite in drafted else (f"{cite}\n\n{drafted}" if drafted else cite)
    initial["headline"] = current.get("headline") or f"Checked before by {factcheck.publisher}"[:74]
    from_factcheck = [item.pk for item in evidence if factcheck.url and item.url == factcheck.url]
    initial["evidence"] = list(dict.fromkeys([*current.get("evidence", []), *from_factcheck]))
    return initial


# --- The library page ------------------------------------------------------------------------

LIBRARY_PAGE_SIZE = 50


def factcheck_publishers() -> list[str]:
    return list(FactCheck.objects.order_by("publisher").values_list("publisher", flat=True).distinct())


def factchecks_search(
    *, text: str = "", publisher: str = "", rating: str = "", published_from: date | None = None, published_to: date | None = None
) -> QuerySet[FactCheck]:
    """The library filtered: full text over the claim, title and speaker (the `search` column's
    index, web-search syntax), publisher, the publisher's rating words (contains) and the date
    range; best text match first when there is a text, else newest first."""
    found = FactCheck.objects.defer("metadata", "search")
    if text.strip():
        query = SearchQuery(text.strip(), search_type="websearch", config="english")
        found = found.filter(search=query).annotate(rank=SearchRank(F("search"), query)).order_by("-rank", "-published_on", "-id")
    if publisher:
        found = found.filter(publisher=publisher)
    if rating.strip():
        found = found.filter(rating_text__icontains=rating.strip())
    if published_from is not None:
        found = found.filter(published_on__gte=published_from)
    if published_to is not None:
        found = found.filter(published_on__lte=published_to)
    return found


def factcheck_get_for_user(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> FactCheck:
    """The access helper: the library is every role's to read; 404 for anyone without one."""
    if not has_role(user, Role.REVIEWER):
        raise Http404("No such fact-check.")
    try:
        return FactCheck.objects.get(pk=pk)
    except FactCheck.DoesNotExist as exc:
        raise Http404("No such fact-check.") from exc


def factcheck_matches(*, factcheck: FactCheck) -> list[ClaimMatch]:
    """The claims a fact-check was matched to, with the desk's decisions on them: confirmed
    first, then suggested by score, rejected last."""
    order = Case(
        When_(status=ClaimMatch.Status.CONFIRMED, then=Value(0)), When_(status=ClaimMatch.Status.SUGGESTED, then=Value(1)), default=Value(2),
        output_field=IntegerField(),
    )
    return list(
        ClaimMatch.objects.filter(factcheck=factcheck)
        .select_related("claim", "claim__article", "claim__article__outlet", "decided_by")
        .annotate(status_order=order)
        .order_by("status_order", "-score", "id")
    )
