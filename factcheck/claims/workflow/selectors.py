"""Reads for one claim's page: the claim, its appearances, context, timeline and workspace."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db.models import F, Prefetch, Q, QuerySet
from django.db.models.functions import Coalesce
from django.http import Http404

from factcheck.accounts.roles import GROUP_FOR_ROLE, Role, has_role
from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Annotation, Claim, ClaimCluster, Evidence, Verdict
from factcheck.claims.ranking.selectors import recency_of_rank


def claim_get_for_user(*, user: AbstractBaseUser | AnonymousUser, pk: int) -> Claim:
    """The access helper: a claim is visible to reviewers and up; anyone else gets 404."""
    if not has_role(user, Role.REVIEWER):
        raise Http404("No such claim.")
    try:
        return claims_for_pages().get(pk=pk)
    except Claim.DoesNotExist as exc:
        raise Http404("No such claim.") from exc


def claims_for_pages() -> QuerySet[Claim]:
    """Claims as the claim page shows them: with their article, outlet, cluster and its
    assignee, and their `recency` points and `total` (the queue's rank)."""
    return Claim.objects.select_related("article", "article__outlet", "cluster", "cluster__assignee", "model_version").annotate(
        recency=recency_of_rank(), total=F("queue_rank")
    )


def claim_cluster_ids(*, claim: Claim) -> list[int]:
    """The ids of every appearance of the claim's cluster (itself included)."""
    return list(Claim.objects.filter(cluster__cluster_key=claim.cluster_id).order_by("id").values_list("id", flat=True))


def claim_appearances(*, claim: Claim) -> list[Claim]:
    """Every appearance of the claim's cluster (itself included), first published first."""
    return list(
        Claim.objects.filter(cluster__cluster_key=claim.cluster_id)
        .select_related("article", "article__outlet")
        .order_by(Coalesce("article__published_at", "article__created_at"), "id")
    )


# A figure said every day for months holds back many wordings: the page shows the first.
SAME_FIGURE_SHOWN = 25


def claim_same_figure(*, claim: Claim) -> list[Claim]:
    """The lead wordings of the other clusters of the claim's story (pipeline.nlp.stories): the
    cluster that ranks the figure and those it holds back, highest priority first, at most
    SAME_FIGURE_SHOWN + 1 (the page says when there are more); [] when no other wording of its
    figure is held back by it or holds it back."""
    cluster = claim.cluster
    if not cluster.story_keys and not cluster.repeat_of:
        return []  # no headline figure with a name: no story, and no query
    lead_key = cluster.repeat_of or cluster.cluster_key
    clusters = ClaimCluster.objects.filter(Q(cluster_key=lead_key) | Q(repeat_of=lead_key)).exclude(cluster_key=cluster.cluster_key)
    return list(
        Claim.objects.filter(pk__in=clusters.values("lead_claim_id"))
        .select_related("article", "article__outlet", "cluster")
        .order_by("-priority", "id")[: SAME_FIGURE_SHOWN + 1]
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
