"""The queue's order on the issue's BBC examples: politicians' contested claims on public
matters above routine company results, every claim its own priority (the PostgreSQL
function the merge and the web app both call)."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from pipeline.extract import ArticleText, extract_articles
from pipeline.nlp.checkworthiness import load_scorer
from tests.conftest import SHARED_DATA

BBC = SHARED_DATA / "bbc_news" / "bbc_news.jsonl"
ARTICLES = ("politics/350", "politics/260", "politics/153", "politics/087", "politics/237", "business/001")
pytestmark = [pytest.mark.django_db, pytest.mark.skipif(not BBC.is_file(), reason="BBC News corpus not found in ../shared/data")]


@pytest.fixture(scope="module")
def bbc_claims() -> list:
    with open(BBC, encoding="utf-8") as handle:
        texts = {record["id"]: record["text"] for record in map(json.loads, handle) if record["id"] in ARTICLES}
    _, claims = extract_articles([ArticleText(texts[a], a) for a in ARTICLES], load_scorer())
    return [claim for _, claim in claims]


def priorities(claims: list) -> dict[str, float]:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT t.sentence, (p.parts->>'priority')::float
            FROM unnest(%s::text[], %s::float8[], %s::text[], %s::jsonb[]) AS t(sentence, score, claim_type, signals)
            CROSS JOIN LATERAL claim_priority_parts(t.score, t.claim_type, t.signals, 1, now(), now()) AS p(parts)
            """,
            [[c.sentence for c in claims], [c.score for c in claims], [c.claim_type for c in claims], [json.dumps(c.signals) for c in claims]],
        )
        return dict(cursor.fetchall())


def test_politicians_claims_on_public_matters_rank_above_company_results(bbc_claims: list) -> None:
    ranked = priorities(bbc_claims)

    def of(fragment: str) -> float:
        (value,) = [p for sentence, p in ranked.items() if fragment in sentence]
        return value

    results = of("TimeWarner jumped 76%")
    for fragment in (
        "raising taxes 66 times and brought the slowest",
        "Tories accuse Labour of raising taxes 66 times",
        "failed to remove 250,000 failed asylum seekers",
        "only two out of 10 asylum seekers",
        "asylum cost £2bn a year",
    ):
        assert of(fragment) > results + 20, fragment


def test_claims_do_not_tie(bbc_claims: list) -> None:
    ranked = priorities(bbc_claims)
    assert len(set(ranked.values())) >= 0.95 * len(ranked)
