"""API fixtures: token clients per persona and a small desk's worth of claims, clusters and
verdicts, made through the real services."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from django.core.cache import cache
from django.test import Client

from factcheck.api.services import api_token_create
from factcheck.articles.models import Article
from factcheck.claims.models import Claim, ClaimCluster, Evidence, Verdict
from factcheck.claims.workflow import services
from tests.workflow.factories import make_claim


@pytest.fixture(autouse=True)
def fresh_address_throttles() -> None:
    """The test client's address starts each API test with no anonymous requests counted
    (DRF keeps its counts in the shared cache, which outlives a test)."""
    cache.delete_many([f"throttle_{scope}_127.0.0.1" for scope in ("api-anon", "api-user")])


def token_client(user) -> Client:  # type: ignore[no-untyped-def]
    _, secret = api_token_create(user=user, name="tests")
    return Client(HTTP_AUTHORIZATION=f"Token {secret}")


@dataclass
class Desk:
    lyons: Claim  # numeric, in a 2-outlet cluster, approved verdict (revision 1) with evidence
    lyons_globe: Claim  # the same claim in another outlet
    wu: Claim  # drafted verdict awaiting approval, assigned to the reviewer
    other: Claim  # new, no number, low priority
    cluster: ClaimCluster
    approved: Verdict
    draft: Verdict
    evidence: Evidence


@pytest.fixture
def desk(reviewer, editor) -> Desk:  # type: ignore[no-untyped-def]
    lyons = make_claim(
        outlet="MassLive", priority=81.5, score=0.93, speaker="Todd Lyons", speaker_title="Acting ICE Director",
        attribution="direct_quote", cluster_key="a" * 40, claim_types=["numeric", "quote"],
        quantities=[{"text": "nearly 1,500 people", "start": 12, "end": 31, "value": 1500.0, "unit": "people", "hedge": "approximately-below"}],
        priority_parts={"checkworthiness": 46.5, "type": 15, "spread": 5.0, "recency": 15.0, "outlets": 2},
    )
    lyons_globe = make_claim(outlet="Boston Globe", priority=70.0, score=0.9, speaker="Todd Lyons", cluster_key="a" * 40)
    wu = make_claim(
        outlet="Boston Globe", sentence="Boston's crime rate fell for the third year running.", priority=60.0, score=0.7,
        speaker="Michelle Wu", claim_type="comparison", tags=["crime"],
    )
    other = make_claim(outlet="WBUR", sentence="The mayor spoke at length on Tuesday.", priority=10.0, score=0.45, claim_type="other")
    Article.objects.filter(pk=other.article_id).update(published_at=datetime(2025, 6, 1, 12, tzinfo=UTC))
    cluster, _ = ClaimCluster.objects.update_or_create(
        cluster_key="a" * 40, defaults={"size": 2, "outlet_count": 2, "first_claim": lyons, "first_seen_at": datetime(2025, 6, 2, tzinfo=UTC)}
    )

    services.claim_mark_check(claim=lyons, actor=reviewer)
    services.claim_start_research(claim=lyons, actor=reviewer)
    evidence = services.evidence_add(
        claim=lyons, actor=reviewer, kind="official_statistic", url="https://www.ice.gov/statistics", title="ICE statistics"
    )
    approved = services.verdict_draft(
        claim=lyons, actor=reviewer, rating="mostly_true", headline="Close to ICE's own count", explanation="ICE reported 1,461.",
        evidence_ids=[evidence.pk],
    )
    approved = services.verdict_approve(verdict=approved, actor=editor, expected_version=approved.version)

    services.claim_mark_check(claim=wu, actor=reviewer)
    services.claim_start_research(claim=wu, actor=reviewer)
    draft = services.verdict_draft(claim=wu, actor=reviewer, rating="half_true", headline="Fell, but not three years", explanation="Two years.")
    for claim in (lyons, lyons_globe, wu, other):
        claim.refresh_from_db()
    return Desk(lyons=lyons, lyons_globe=lyons_globe, wu=wu, other=other, cluster=cluster, approved=approved, draft=draft, evidence=evidence)
