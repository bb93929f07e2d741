"""Builders for export tests: claims in articles, clusters, verdicts published through the real services."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim, ClaimCluster, Verdict
from factcheck.claims.workflow import services
from tests.workflow.factories import join_cluster, set_cluster_state, split_state

_counter = itertools.count(1)


def claim_in_article(
    *,
    sentence: str,
    outlet: str = "MassLive",
    title: str = "",
    url: str = "",
    author: str = "",
    published_at: datetime | None = None,
    cluster_key: str = "",
    **fields: Any,
) -> Claim:
    n = next(_counter)
    text = f"Report {n} begins.\n\n{sentence} More followed."
    article, _ = article_ingest(
        data=ArticleInput(text=text, outlet=outlet, title=title, url=url, author=author, published_at=published_at), batch=None
    )
    start = text.index(sentence)
    values: dict[str, Any] = {"score": 0.8, "priority": 50.0, "claim_type": "numeric", "status": Claim.Status.IN_RESEARCH}
    values.update(fields)
    own, state = split_state(values)
    claim = Claim.objects.create(
        article=article, claim_key=f"e{n:039x}", sentence=sentence, start_offset=start, end_offset=start + len(sentence),
        cluster_key=cluster_key, **own,
    )
    return set_cluster_state(claim, **state)


def cluster_of(claims: list[Claim], *, first: Claim) -> ClaimCluster:
    key = min(claim.claim_key for claim in claims)
    cluster = join_cluster(claims, key)
    outlets = {claim.article.outlet_id for claim in claims}
    cluster.size, cluster.outlet_count, cluster.first_claim = len(claims), len(outlets), first
    cluster.save()
    return cluster


def publish(
    claim: Claim,
    *,
    author: AbstractBaseUser,
    approver: AbstractBaseUser,
    rating: str = "mostly_false",
    headline: str = "Arrests were lower than claimed",
    explanation: str = "ICE's own May figures show **1,100** arrests.",
    evidence: list[tuple[str, str, str]] | None = None,
    claim_reviewed: str = "",
) -> Verdict:
    """Draft a verdict as `author` and approve it as `approver`, with evidence
    [(kind, url, title)] cited; the claim must be where a verdict can be drafted."""
    claim.refresh_from_db()
    if claim.cluster.status == Claim.Status.IN_RESEARCH and claim.cluster.assignee_id is None:
        services.claim_assign(claim=claim, actor=author, assignee=author)
    ids = [
        services.evidence_add(claim=claim, actor=author, kind=kind, url=url, title=title).pk
        for kind, url, title in (evidence if evidence is not None else [("official_statistic", "https://www.ice.gov/statistics", "ICE statistics")])
    ]
    current = services.verdict_current(claim)
    expected = current.version if current is not None and current.status != Verdict.Status.APPROVED else None
    verdict = services.verdict_draft(
        claim=claim, actor=author, rating=rating, headline=headline, explanation=explanation, claim_reviewed=claim_reviewed, evidence_ids=ids,
        expected_version=expected, force=True,
    )
    return services.verdict_approve(verdict=verdict, actor=approver, expected_version=verdict.version)


