"""Reads for claims: each selector fixes its query shape."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch, QuerySet
from django.db.models.functions import Coalesce
from django.http import Http404

from factcheck.accounts.roles import GROUP_FOR_ROLE, Role, has_role
from factcheck.claims.models import Annotation, Claim, Evidence, Verdict


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
    verdicts: list[Verdict]  # newest revision first

    @property
    def current_verdict(self) -> Verdict | None:
        return self.verdicts[0] if self.verdicts else None

    @property
    def published_verdict(self) -> Verdict | None:
        return next((v for v in self.verdicts if v.status == Verdict.Status.APPROVED), None)


def claim_workspace(*, claim: Claim) -> Workspace:
    """Notes, evidence and every verdict revision of a claim, in four queries."""
    return Workspace(
        annotations=list(Annotation.objects.filter(claim=claim).select_related("author").order_by("created_at", "id")),
        evidence=list(Evidence.objects.filter(claim=claim).select_related("added_by").order_by("created_at", "id")),
        verdicts=list(
            Verdict.objects.filter(claim=claim)
            .select_related("author", "approved_by")
            .prefetch_related(Prefetch("evidence", queryset=Evidence.objects.order_by("id")))
            .order_by("-revision")
        ),
    )


def assignable_users() -> QuerySet[AbstractBaseUser]:
    """Everyone who may hold a claim: active users with a role."""
    return (
        get_user_model()
        .objects.filter(is_active=True, groups__name__in=list(GROUP_FOR_ROLE.values()))
        .distinct()
        .order_by("username")
    )
