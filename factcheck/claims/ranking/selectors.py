"""Reads for the queue's order: the recency points in a rank, the current weights, the basis and
their changes (the ranking weights page)."""

from __future__ import annotations

from django.db.models import F, FloatField, Func

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import PriorityBasis, RankingWeights
from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS


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


def recency_of_rank() -> Func:
    """The recency points in a claim's queue_rank (its rank less its standing priority), to the
    4 decimals they are rounded to."""
    return Func(F("queue_rank") - F("priority"), template="round((%(expressions)s)::numeric, 4)::float8", output_field=FloatField())
