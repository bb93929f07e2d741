"""Golden results on the seed articles, through the same extraction code the Spark job runs."""

from __future__ import annotations

from collections import defaultdict

import pytest

from pipeline.extract import article_sentences
from pipeline.local import ExtractedClaim, SourceArticle, extract
from pipeline.nlp.checkworthiness import load_scorer
from tests.conftest import ROOT

SEEDS = sorted((ROOT / "seeds").glob("*.txt"))


@pytest.fixture(scope="module")
def seed_claims() -> list[ExtractedClaim]:
    articles = [SourceArticle(source=path.name, text=path.read_text(encoding="utf-8")) for path in SEEDS]
    _, _, claims = extract(articles, load_scorer())
    return claims


def find(claims: list[ExtractedClaim], fragment: str) -> list[ExtractedClaim]:
    return [item for item in claims if fragment in item.claim.sentence]


def test_the_three_seeds_are_there() -> None:
    assert [path.name[:3] for path in SEEDS] == ["000", "001", "002"]


def test_flood_the_zone_is_one_cluster_across_all_three_outlets(seed_claims: list[ExtractedClaim]) -> None:
    appearances = find(seed_claims, "flood the zone, especially in sanctuary jurisdictions")
    assert sorted(item.article.source[:3] for item in appearances) == ["000", "001", "002"]
    assert len({item.claim.cluster_key for item in appearances}) == 1
    assert {item.claim.speaker for item in appearances} == {"Todd Lyons"}
    assert all(item.claim.claim_type == "prediction" for item in appearances)


def test_sanctuary_quote_is_one_cluster_across_the_outlets_that_carry_it(seed_claims: list[ExtractedClaim]) -> None:
    appearances = find(seed_claims, "Sanctuary does not mean safer streets")
    assert sorted(item.article.source[:3] for item in appearances) == ["000", "001"]
    assert len({item.claim.cluster_key for item in appearances}) == 1
    assert all(item.claim.claim_type == "comparison" for item in appearances)
    assert all(item.claim.speaker == "Todd Lyons" and item.claim.attribution == "direct_quote" for item in appearances)


def test_clusters_do_not_swallow_unrelated_claims(seed_claims: list[ExtractedClaim]) -> None:
    members: dict[str, set[str]] = defaultdict(set)
    for item in seed_claims:
        members[item.claim.cluster_key].add(item.claim.sentence)
    largest = max(members.values(), key=len)
    assert len(largest) <= 3
    (detained,) = find(seed_claims, "nearly 1,500")
    assert members[detained.claim.cluster_key] == {detained.claim.sentence}


def test_quantities_and_speakers_on_the_seeds(seed_claims: list[ExtractedClaim]) -> None:
    (detained,) = find(seed_claims, "detained nearly 1,500 people")
    assert detained.claim.claim_type == "numeric"
    quantity = detained.claim.quantities[0]
    assert (quantity["value"], quantity["unit"], quantity["hedge"], quantity["hedge_text"]) == (1500.0, "people", "approximately", "nearly")
    (grants,) = find(seed_claims, "for 22 years")
    assert [(q["value"], q["unit"]) for q in grants.claim.quantities] == [(22.0, "years")]
    assert grants.claim.speaker == "Michelle Wu"
    (bondi,) = find(seed_claims, "nearly three dozen such cities")
    assert [(q["value"], q["unit"], q["hedge"]) for q in bondi.claim.quantities] == [(36.0, "cities", "approximately")]
    (crime,) = find(seed_claims, "higher crime rates")
    assert crime.claim.claim_type == "comparison"
    (kraft,) = find(seed_claims, "It is outrageous to think about ICE officers")
    assert (kraft.claim.speaker, kraft.claim.speaker_title) == ("Josh Kraft", "Mayoral candidate")
    # Not a claim (an aside), but attributed all the same.
    (aside,) = [s for path in SEEDS for s in article_sentences(path.read_text(encoding="utf-8")) if "They can’t cooperate openly" in s.text]
    assert (aside.speaker, aside.speaker_title) == ("Todd Lyons", "Acting ICE Director")


def test_every_claim_points_at_its_own_text(seed_claims: list[ExtractedClaim]) -> None:
    texts = {path.name: path.read_text(encoding="utf-8").strip() for path in SEEDS}
    for item in seed_claims:
        assert texts[item.article.source][item.claim.start : item.claim.end] == item.claim.sentence
