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


def priorities(claims: list, outlets: list[int] | None = None) -> dict[str, float]:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT t.sentence, (p.parts->>'priority')::float
            FROM unnest(%s::text[], %s::float8[], %s::text[], %s::jsonb[], %s::int[]) AS t(sentence, score, claim_type, signals, outlets)
            CROSS JOIN LATERAL claim_priority_parts(t.score, t.claim_type, t.signals, t.outlets) AS p(parts)
            """,
            [[c.sentence for c in claims], [c.score for c in claims], [c.claim_type for c in claims],
             [json.dumps(c.signals) for c in claims], outlets or [1] * len(claims)],
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


@pytest.mark.xfail(
    strict=True,
    reason=(
        "A known miss since the training grades became three labellers' (docs/model.md, 'Two more labellers for the "
        "training grades'): the model reads US immigration news it was never graded on as unfamiliar, and this cause "
        "asserted by an official fell from 18th to 24th of the seeds' 31 clusters (contestability 0.06 -> 0.04). "
        "The desk's own decisions are the remedy (refit); strict, so the fix that lifts it says so here."
    ),
)
def test_the_seed_crime_assertion_is_in_the_top_half_of_the_seed_queue() -> None:
    """"Sanctuary does not mean safer streets." ranked #47 of 69 seed claims before issue 29."""
    from pipeline.local import SourceArticle, extract
    from tests.conftest import ROOT

    seeds = sorted((ROOT / "seeds").glob("*.txt"))
    _, _, found = extract([SourceArticle(source=path.name, text=path.read_text(encoding="utf-8")) for path in seeds], load_scorer())
    # Each seed is another outlet: a claim's spread is the number of seeds its cluster spans.
    outlets = {key: len({f.article.source for f in found if f.claim.cluster_key == key}) for key in {f.claim.cluster_key for f in found}}
    claims = [f.claim for f in found]
    ranked = sorted(priorities(claims, [outlets[c.cluster_key] for c in claims]).items(), key=lambda item: -item[1])
    position = next(i for i, (sentence, _) in enumerate(ranked) if "Sanctuary does not mean safer streets" in sentence)
    assert position < len(ranked) / 2
