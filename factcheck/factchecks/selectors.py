"""Reads for the fact-check library: a claim's matches, the queue's "checked before", the
citations of a ClaimReview, and the import pages."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection
from django.http import Http404

from factcheck.accounts.roles import Role, has_role
from factcheck.claims.models import Claim, Evidence
from factcheck.factchecks.models import ClaimMatch, FactCheck, FactCheckImport
from factcheck.factchecks.ratings import verdict_rating_for

ERRORS_SHOWN = 20


def claim_matches_for(*, claim: Claim) -> list[ClaimMatch]:
    """A claim's matches for its page: confirmed first, then by rank; rejected ones last."""
    order = {ClaimMatch.Status.CONFIRMED: 0, ClaimMatch.Status.SUGGESTED: 1, ClaimMatch.Status.REJECTED: 2}
    matches = list(ClaimMatch.objects.filter(claim=claim).select_related("factcheck", "decided_by"))
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


class CheckedBefore(NamedTuple):
    publisher: str
    rating: str
    date: date | None
    # A reviewer confirmed the match; otherwise it is the matcher's suggestion.
    confirmed: bool = False


# The one match the queue shows per claim: a confirmed one before a suggestion, then the best
# ranked; a suggestion only from FACTCHECK_CHECKED_BEFORE_MIN_SCORE, rejected matches never (the
# queue's checked_before filter, claims.filters, holds the same rule). One indexed pass over
# the page's claims.
_CHECKED_BEFORE_SQL = """
SELECT DISTINCT ON (m.claim_id) m.claim_id, f.publisher, f.rating_text, f.rating_value, f.published_on, m.status = 'confirmed'
FROM claim_matches AS m JOIN factchecks AS f ON f.id = m.factcheck_id
WHERE m.claim_id = ANY(%s) AND (m.status = 'confirmed' OR (m.status = 'suggested' AND m.score >= %s))
ORDER BY m.claim_id, (m.status = 'confirmed') DESC, m.rank, m.score DESC, m.id
"""


def claims_checked_before(claim_ids: Iterable[int]) -> dict[int, CheckedBefore]:
    """{claim id: (publisher, rating, date, confirmed)} for the claims with a confirmed match or a
    likely suggestion (the queue's "Checked before" badge). The rating is the publisher's words, or "n of 5" on our scale."""
    ids = list(claim_ids)
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_CHECKED_BEFORE_SQL, [ids, settings.FACTCHECK_CHECKED_BEFORE_MIN_SCORE])
        found = cursor.fetchall()
    return {
        claim_id: CheckedBefore(
            publisher=publisher, rating=rating_text or (f"{rating_value} of 5" if rating_value else ""), date=published_on, confirmed=confirmed
        )
        for claim_id, publisher, rating_text, rating_value, published_on, confirmed in found
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
    return ImportProgress(batch=batch, errors_shown=shown_list, errors_listed=listed)


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
