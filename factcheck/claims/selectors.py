"""Reads for claims: each selector fixes its query shape."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.db.models.functions import Coalesce
from django.http import Http404

from factcheck.accounts.roles import Role, has_role
from factcheck.claims.models import Claim


def claim_list(*, article_id: int | None = None) -> QuerySet[Claim]:
    claims = Claim.objects.select_related("article", "article__outlet", "assignee").order_by("-priority", "id")
    if article_id is not None:
        claims = claims.filter(article_id=article_id)
    return claims


def claim_get_for_user(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> Claim:
    """The access helper: a claim is visible to reviewers and up; anyone else gets 404."""
    if not has_role(user, Role.REVIEWER):
        raise Http404("No such claim.")
    try:
        return Claim.objects.select_related("article", "article__outlet", "assignee").get(pk=pk)
    except Claim.DoesNotExist as exc:
        raise Http404("No such claim.") from exc


def claim_appearances(*, claim: Claim) -> list[Claim]:
    """Every appearance of the claim's cluster, first published first."""
    if not claim.cluster_key:
        return [claim]
    return list(
        Claim.objects.filter(cluster_key=claim.cluster_key)
        .select_related("article", "article__outlet")
        .order_by(Coalesce("article__published_at", "article__created_at"), "id")
    )


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
