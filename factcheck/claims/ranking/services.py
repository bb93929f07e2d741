"""The queue's order: the ranking weights (admins' one write), the re-rank, the queue order's
refresh and the re-score that follow."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import connection, transaction

from factcheck.accounts.roles import Role
from factcheck.audit.services import audit_record
from factcheck.cache import QUEUE_CHANGES
from factcheck.claims.models import Claim, RankingWeights
from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS, WEIGHT_FIELDS
from factcheck.claims.workflow.services import EVERY_CLUSTER, require_role
from pipeline.merge import MERGE_LOCK_ID, WEIGHTS_VERSION
from pipeline.sql import statement
from pipeline.stories_store import refresh_story_repeats

# --- The queue's ranking weights ----------------------------------------------------------


@transaction.atomic
def ranking_weights_set(*, actor: User, weights: dict[str, float]) -> RankingWeights:
    """Save new ranking weights (admins only), audited, and re-rank the queue once this commits.

    Every weight must be given, within its range (ranking.WEIGHT_FIELDS). The same weights
    again change nothing: no new version, no audit row, no re-rank."""
    from factcheck.claims.tasks import ranking_rerank

    require_role(actor, Role.ADMIN, "Changing the ranking weights")
    given = {key: float(value) for key, value in weights.items()}
    expected = {field.key: field for field in WEIGHT_FIELDS}
    if set(given) != set(expected):
        raise ValidationError(f"Give exactly these weights: {', '.join(expected)}.")
    for key, value in given.items():
        field = expected[key]
        if not (math.isfinite(value) and field.minimum <= value <= field.maximum):
            raise ValidationError({key: f"{field.label} must be between {field.minimum:g} and {field.maximum:g}."})
    current, _ = RankingWeights.objects.select_for_update().get_or_create(
        pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 0}
    )
    if current.weights == given:
        return current
    before = {"weights": current.weights, "version": current.version}
    current.weights, current.version = given, current.version + 1
    current.full_clean()
    current.save()
    audit_record(
        actor=actor, verb="ranking_weights_set", object_type="ranking_weights", object_id=current.pk,
        before=before, after={"weights": current.weights, "version": current.version},
    )
    version = current.version
    transaction.on_commit(lambda: ranking_rerank.apply_async(args=(version,), queue=settings.CELERY_TASK_DEFAULT_QUEUE))
    return current


def claims_rerank() -> int:
    """Every cluster's lead and every claim's priority and parts with the current weights (the
    pipeline's own statements, pipeline/sql/refresh_clusters.sql and refresh_all_priorities.sql);
    returns the claims whose priority changed, 0 when run again.

    Holds the advisory lock the pipeline's merge holds, so a re-rank and a merge never
    interleave: whichever comes second waits and computes with what the first committed."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [MERGE_LOCK_ID])
        # Read before the refresh: weights saved in between leave the basis behind, and the
        # next merge then refreshes every priority itself (pipeline.merge.refresh_priorities).
        cursor.execute(WEIGHTS_VERSION)
        (version,) = cursor.fetchone()
        # New weights can make another appearance its cluster's lead: every cluster's
        # statistics and lead first (the merge's own statement), then every priority.
        cursor.execute(EVERY_CLUSTER)
        (every_cluster,) = cursor.fetchone()
        cursor.execute(statement("refresh_clusters"), {"cluster_keys": every_cluster})
        cursor.execute(statement("refresh_all_priorities"))
        changed = cursor.rowcount
        refresh_story_repeats(cursor, None)
        # The basis as the merge records it (one row): also where no run has merged yet, so
        # the ranking page can say the re-rank is done (selectors.ranking_basis_version).
        cursor.execute("DELETE FROM claim_priority_basis")
        cursor.execute("INSERT INTO claim_priority_basis (weights_version) VALUES (%s)", [version])
        # A changed recency weight or half-life moves no standing priority: the stored order too.
        _queue_order_refresh(cursor)
        return changed


# The queue's stored order against today's UTC day and the current recency weights
# (factcheck/claims/sql_functions/claim_queue_rank_at.sql): the basis moves, then every rank that differs.
QUEUE_ORDER_BASIS_SQL = """
INSERT INTO claim_queue_order_basis (id, day, weight, half_life_days)
SELECT 1, claim_seen_day(now()), recency, half_life_days FROM claim_queue_weights()
ON CONFLICT (id) DO UPDATE SET day = EXCLUDED.day, weight = EXCLUDED.weight, half_life_days = EXCLUDED.half_life_days
WHERE (claim_queue_order_basis.day, claim_queue_order_basis.weight, claim_queue_order_basis.half_life_days)
      IS DISTINCT FROM (EXCLUDED.day, EXCLUDED.weight, EXCLUDED.half_life_days)
"""
QUEUE_ORDER_RANKS_SQL = """
UPDATE claims c SET queue_rank = claim_queue_rank_at(c.priority, c.seen_at, b.day, b.weight, b.half_life_days)
FROM claim_queue_basis() b
WHERE c.queue_rank IS DISTINCT FROM claim_queue_rank_at(c.priority, c.seen_at, b.day, b.weight, b.half_life_days)
"""


def _queue_order_refresh(cursor: Any) -> int:
    cursor.execute(QUEUE_ORDER_BASIS_SQL)
    if cursor.rowcount == 0:
        # The basis stands: the trigger ranked every write against it, so no rank differs.
        return 0
    cursor.execute(QUEUE_ORDER_RANKS_SQL)
    return cursor.rowcount


def queue_order_refresh() -> int:
    """Move the queue's stored order to today (and the current recency weights) when either
    changed, rewriting the ranks that differ; returns how many, 0 when run again the same day.
    Holds the merge's lock, so that no run's writes interleave with the rewrite."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [MERGE_LOCK_ID])
        changed = _queue_order_refresh(cursor)
    if changed:
        QUEUE_CHANGES.changed()
    return changed


RESCORE_BATCH = 2000


def claims_rescore() -> int:
    """Every stored claim's contestability with the active check-worthiness version's ranking
    model, recorded as scored by that version, then every cluster's lead and priority
    (claims_rerank). For claims stored before contestability existed, or after a promotion;
    the check-worthiness score itself stays until a run reads the article again. Returns the
    claims whose signals changed."""
    from factcheck.learning.models import ModelKind
    from factcheck.learning.selectors import active_version
    from factcheck.learning.services import model_store_path
    from pipeline.nlp.contestability import ClaimView, load_model

    version = active_version(ModelKind.CHECKWORTHINESS)
    model = load_model(model_store_path(version))
    changed = 0
    last = 0
    columns = ("id", "sentence", "score", "claim_type", "claim_types", "attribution", "rank_signals", "model_version_id")
    while batch := list(Claim.objects.filter(pk__gt=last).order_by("pk").only(*columns)[:RESCORE_BATCH]):
        last = batch[-1].pk
        updated = []
        for claim in batch:
            signals = dict(claim.rank_signals or {})
            view = ClaimView(claim.sentence, claim.score, claim.claim_type, tuple(claim.claim_types or ()), claim.attribution, signals)
            probability = round(model.probability(view), 4)
            if signals.get("contestability") != probability or claim.model_version_id != version.pk:
                claim.rank_signals = {**signals, "contestability": probability}
                claim.model_version_id = version.pk
                updated.append(claim)
        with transaction.atomic():
            Claim.objects.bulk_update(updated, ["rank_signals", "model_version"])
        changed += len(updated)
    claims_rerank()
    return changed
