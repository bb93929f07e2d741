"""Reads for the API. Each selector fixes its query shape; filtering goes through the queue's
filters (claims_filtered) and claim pages through the queue's own order and keyset, so a
parameter means the same rows in the queue, the exports and here."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, Prefetch, QuerySet
from django.db.models.functions import Coalesce
from django.http import Http404

from factcheck.accounts.roles import Role, has_role
from factcheck.claims.models import Claim, ClaimCluster, Evidence, Verdict
from factcheck.claims.queue.filters import QUEUE_ORDER, after_position, claims_filtered
from factcheck.claims.queue.selectors import plan_reusable
from factcheck.claims.ranking.selectors import recency_of_rank
from factcheck.claims.workflow.selectors import VERDICT_NEWEST_FIRST
from factcheck.postgres.base import prepared, serial_plans

# A claim row: the claim's own columns, its cluster's state and its article's heading; never
# the article's text or the search vectors (most of a row's bytes, and nothing an API client
# needs per claim).
CLAIM_ROW_FIELDS = (
    "id", "claim_key", "sentence", "start_offset", "end_offset", "score", "priority", "priority_parts", "claim_type",
    "claim_types", "quantities", "speaker", "speaker_title", "attribution", "created_at", "updated_at", "article_id",
)


def claim_rows() -> QuerySet[Claim, dict[str, Any]]:
    """Claims as dicts (values()), one query a page: joins for the article, outlet, cluster
    (the work is the cluster's: status, assignee, tags, version) and assignee."""
    return Claim.objects.values(
        *CLAIM_ROW_FIELDS,
        cluster_key=F("cluster_id"),
        status=F("cluster__status"),
        dismiss_reason=F("cluster__dismiss_reason"),
        tags=F("cluster__tags"),
        version=F("cluster__version"),
        assignee_id=F("cluster__assignee_id"),
        assignee_username=F("cluster__assignee__username"),
        cluster_row_id=F("cluster__id"),
        cluster_size=F("cluster__size"),
        cluster_outlets=F("cluster__outlet_count"),
        article_title=F("article__title"),
        article_url=F("article__url"),
        article_published_at=F("article__published_at"),
        article_outlet_id=F("article__outlet_id"),
        outlet_name=F("article__outlet__name"),
        total=F("queue_rank"),
        recency=recency_of_rank(),
    )


def ranked(row: dict[str, Any]) -> dict[str, Any]:
    """A claim row as the API shows it: `priority` is the queue's rank (the standing priority
    plus the recency points, to 4 decimals; `total` unrounded, for the cursor) and
    priority_parts include the recency points."""
    recency = row.pop("recency")
    row["priority"] = round(row["total"], 4)
    if row["priority_parts"]:
        row["priority_parts"] = {**row["priority_parts"], "recency": recency}
    return row


def api_claims_page(
    *, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], position: tuple[float, int] | None, limit: int
) -> list[dict[str, Any]]:
    """A page of claims in queue order after `position` ((queue_rank, id)), every matching
    appearance a row."""
    claims = after_position(claims_filtered(Claim.objects.all(), values=values, user=user), position).order_by(*QUEUE_ORDER)
    with prepared() if plan_reusable(values) else nullcontext(), serial_plans():
        rows = list(claim_rows().filter(pk__in=claims.values("pk")[:limit]).order_by(*QUEUE_ORDER))
    return [ranked(row) for row in rows]


def _require_role(user: AbstractBaseUser | AnonymousUser, what: str) -> None:
    """The web UI's access rule: reviewers and up see every object; anyone else gets 404."""
    if not has_role(user, Role.REVIEWER):
        raise Http404(f"No such {what}.")


def api_claim_get_for_user(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> dict[str, Any]:
    _require_role(user, "claim")
    try:
        return ranked(claim_rows().get(pk=pk))
    except Claim.DoesNotExist as exc:
        raise Http404("No such claim.") from exc


def _cluster_claim_ids(claim_id: int) -> QuerySet[Claim, int]:
    """Every appearance of the claim's cluster: evidence and verdicts are the cluster's,
    whichever appearance they were written on (as the claim page reads them)."""
    own_cluster = Claim.objects.filter(pk=claim_id).values("cluster_id")
    return Claim.objects.filter(cluster_id__in=own_cluster).values_list("id", flat=True)


def claim_evidence(*, claim_id: int) -> list[Evidence]:
    return list(Evidence.objects.filter(claim_id__in=_cluster_claim_ids(claim_id)).select_related("added_by").order_by("created_at", "id"))


def verdict_rows() -> QuerySet[Verdict]:
    return (
        Verdict.objects.select_related("author", "approved_by")
        .annotate(claim_sentence=F("claim__sentence"))
        .prefetch_related(Prefetch("evidence", queryset=Evidence.objects.select_related("added_by").order_by("id")))
    )


def claim_verdicts(*, claim_id: int) -> list[Verdict]:
    """Every revision of the verdict of a claim's cluster, newest first (as the claim page lists them)."""
    return list(verdict_rows().filter(claim_id__in=_cluster_claim_ids(claim_id)).order_by(*VERDICT_NEWEST_FIRST))


def _matching_claims(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any]) -> QuerySet[Claim] | None:
    """The claims the queue filters select, or None when no filter is given (then every row)."""
    if not any(value not in (None, "", []) for value in values.values()):
        return None
    return claims_filtered(Claim.objects.all(), values=values, user=user)


def api_verdicts(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], own: dict[str, Any]) -> QuerySet[Verdict]:
    """Verdict revisions; the queue filters select them by their claim."""
    verdicts = verdict_rows()
    if (claims := _matching_claims(user=user, values=values)) is not None:
        verdicts = verdicts.filter(claim_id__in=claims.values("id"))
    if statuses := own.get("verdict_status"):
        verdicts = verdicts.filter(status__in=statuses)
    if ratings := own.get("rating"):
        verdicts = verdicts.filter(rating__in=ratings)
    if claim := own.get("claim"):
        verdicts = verdicts.filter(claim_id=claim)
    return verdicts


def api_verdict_get_for_user(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> Verdict:
    _require_role(user, "verdict")
    try:
        return verdict_rows().get(pk=pk)
    except Verdict.DoesNotExist as exc:
        raise Http404("No such verdict.") from exc


def cluster_rows() -> QuerySet[ClaimCluster, Any]:
    # Rows are dicts (values()); the Django plugin types them as a TypedDict of these columns,
    # which no plain dict[str, Any] annotation accepts.
    return ClaimCluster.objects.values(
        "id", "cluster_key", "size", "outlet_count", "first_claim_id", "first_seen_at", "updated_at",
        first_sentence=F("first_claim__sentence"),
    )


def api_clusters(*, user: AbstractBaseUser | AnonymousUser, values: dict[str, Any], own: dict[str, Any]) -> QuerySet[ClaimCluster, Any]:
    """Clusters; the queue filters select those with at least one matching appearance."""
    clusters = cluster_rows()
    if (claims := _matching_claims(user=user, values=values)) is not None:
        clusters = clusters.filter(cluster_key__in=claims.values("cluster_id"))
    if (min_size := own.get("min_size")) is not None:
        clusters = clusters.filter(size__gte=min_size)
    return clusters


def api_cluster_get_for_user(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> dict[str, Any]:
    _require_role(user, "cluster")
    try:
        return cluster_rows().get(pk=pk)
    except ClaimCluster.DoesNotExist as exc:
        raise Http404("No such cluster.") from exc


def cluster_appearances(*, cluster_key: str) -> list[dict[str, Any]]:
    """Every appearance (claim) of a cluster, first published first, as claim rows."""
    return [
        ranked(row)
        for row in claim_rows().filter(cluster__cluster_key=cluster_key).order_by(Coalesce("article__published_at", "article__created_at"), "id")
    ]
