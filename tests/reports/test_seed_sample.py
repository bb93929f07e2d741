"""A ClaimReview from real data: the seed articles, their claims as the pipeline extracts and
clusters them, a verdict drafted and approved through the services, the export validated.

`pytest tests/reports/test_seed_sample.py -s` prints the document (the README's sample)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from factcheck.articles.seeds import seed_articles
from factcheck.articles.services import article_ingest
from factcheck.claims.models import Claim, ClaimCluster
from factcheck.claims.workflow.services import claim_reviewed_default_for
from pipeline.local import SourceArticle, extract
from pipeline.nlp.checkworthiness import load_scorer
from tests.reports.claimreview_validator import assert_valid_claimreview
from tests.reports.helpers import publish

pytestmark = pytest.mark.django_db


def store_seed_claims() -> list[Claim]:
    """The seeds stored as the import stores them, their claims and clusters as the pipeline's merge would."""
    sources, articles = [], {}
    for data in seed_articles():
        article, _ = article_ingest(data=data, batch=None)
        articles[article.content_hash] = article
        sources.append(SourceArticle(source=article.content_hash, text=article.text, outlet=data.outlet, author=data.author))
    _, _, extracted = extract(sources, load_scorer())
    claims = Claim.objects.bulk_create(
        Claim(
            article=articles[item.article.source], claim_key=item.claim.claim_key, sentence=item.claim.sentence,
            start_offset=item.claim.start, end_offset=item.claim.end, score=item.claim.score, claim_type=item.claim.claim_type,
            claim_types=item.claim.claim_types, quantities=item.claim.quantities, speaker=item.claim.speaker,
            speaker_title=item.claim.speaker_title, attribution=item.claim.attribution, cluster_key=item.claim.cluster_key,
        )
        for item in extracted
    )
    by_cluster: dict[str, list[Claim]] = {}
    for claim in claims:
        by_cluster.setdefault(claim.cluster_key, []).append(claim)
    for key, members in by_cluster.items():
        # The seeds carry no dates: the first appearance is the first imported.
        first = min(members, key=lambda c: (c.article.created_at, c.pk))
        ClaimCluster.objects.filter(cluster_key=key).update(
            size=len(members), outlet_count=len({(m.article.outlet_id or -m.article_id) for m in members}), first_claim=first,
            status=Claim.Status.IN_RESEARCH,
        )
    return claims


def test_seed_claim_exports_a_valid_claimreview(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claims = store_seed_claims()
    sizes = {key: sum(1 for c in claims if c.cluster_key == key) for key in {c.cluster_key for c in claims}}
    # A Lyons quote the three outlets all carry.
    claim = next(c for c in claims if c.speaker == "Todd Lyons" and c.attribution == "direct_quote" and sizes[c.cluster_key] == 3)
    verdict = publish(
        claim, author=reviewer, approver=editor, rating="unverifiable", headline="A pledge about operations that have not happened yet",
        explanation="ICE publishes arrest figures by area of responsibility only months later; no figure yet shows a surge in Boston.",
        evidence=[("official_statistic", "https://www.ice.gov/statistics", "ICE enforcement and removal statistics")],
    )
    out = StringIO()
    call_command("export_claimreview", "--verdict", str(verdict.pk), "--base-url", "https://factcheck.example.org", stdout=out)
    document = json.loads(out.getvalue())
    assert_valid_claimreview(document, page_url=f"https://factcheck.example.org/factchecks/{claim.pk}/")
    assert len(document["itemReviewed"]["appearance"]) == 3
    assert document["itemReviewed"]["author"]["name"] == "Todd Lyons"
    assert document["reviewRating"]["alternateName"] == "Unverifiable"
    assert "’" in document["claimReviewed"] and "“" not in document["claimReviewed"]  # "We’re": an apostrophe, not a quote mark
    # Issue 30's example: the quotation without its attribution lead-in, whichever mark the
    # sentence splitter left.
    sanctuary = [c for c in claims if "Sanctuary does not mean safer streets" in c.sentence]
    assert sanctuary and {claim_reviewed_default_for(c) for c in sanctuary} == {"Sanctuary does not mean safer streets."}
    print(out.getvalue())
