"""Which sentences become claims: golden cases from the seeds and the BBC corpus (issue 12)."""

from __future__ import annotations

import json

import pytest

from pipeline.extract import ArticleText, article_sentences, extract_articles, is_claim
from pipeline.local import SourceArticle, extract
from pipeline.nlp.checkworthiness import Scorer, load_scorer
from pipeline.nlp.claim_features import has_pronoun_subject, is_boilerplate, is_pronoun_fragment, is_question, is_reported_question
from tests.conftest import ROOT, SHARED_DATA

SEEDS = sorted((ROOT / "seeds").glob("*.txt"))
BBC = SHARED_DATA / "bbc_news" / "bbc_news.jsonl"


@pytest.fixture(scope="module")
def scorer() -> Scorer:
    return load_scorer()


@pytest.fixture(scope="module")
def seed_claims(scorer: Scorer) -> list:
    return extract([SourceArticle(source=path.name, text=path.read_text(encoding="utf-8")) for path in SEEDS], scorer)[2]


def claim_of(sentence: str, scorer: Scorer, *, speaker_title: str = "", claim_type: str = "other") -> bool:
    return is_claim(sentence=sentence, score=float(scorer.score([sentence])[0]), threshold=scorer.threshold, claim_type=claim_type, speaker_title=speaker_title)


@pytest.mark.parametrize(
    "line",
    [
        "MassLive reporter Tréa Lavery contributed to this story.",
        "Reporting by Jane Doe; Editing by Tom Brown.",
        "By John Smith, Reuters",
        "Follow him on Twitter @jsmith.",
        "Photo: Getty Images",
        "Correction: An earlier version of this story misstated the mayor's title.",
        "Sign up for our newsletter.",
    ],
)
def test_page_furniture_is_never_a_claim(line: str, scorer: Scorer) -> None:
    assert is_boilerplate(line)
    assert not claim_of(line, scorer, claim_type="numeric")


def test_a_dated_sentence_that_starts_with_by_is_not_a_byline() -> None:
    assert not is_boilerplate("By Monday, police had arrested 11 people.")
    assert not is_boilerplate("By 2010 the rate had doubled.")


def test_questions_and_rhetoric_are_not_claims(scorer: Scorer) -> None:
    assert is_question("Would the government surge federal agents to Boston?")
    assert not claim_of("Would the government surge federal agents to Boston?", scorer, claim_type="prediction", speaker_title="Host")
    assert not claim_of("We cannot yield to Donald Trump and his band of thugs.", scorer)
    host = "Carr asked whether the government may “surge” federal agents to Boston, akin to how it has deployed National Guard troops."
    assert is_reported_question(host) and not claim_of(host, scorer, claim_type="prediction", speaker_title="Host")
    assert not is_reported_question("The minister, asked whether taxes would rise, said they had fallen by 2% since 2001.")
    assert not claim_of("Thank you very much, it's great to be here.", scorer)


def test_pronoun_fragments_are_not_claims_but_pronoun_claims_keep_their_context(seed_claims: list) -> None:
    assert is_pronoun_fragment("It did.") and not is_pronoun_fragment("It means more criminal aliens out and about the neighborhood.")
    (aliens, *_) = [c for c in seed_claims if c.claim.sentence.startswith("It means more criminal aliens")]
    assert has_pronoun_subject(aliens.claim.sentence)
    assert "Sanctuary does not mean safer streets" in aliens.claim.context
    plain = next(c for c in seed_claims if "detained nearly 1,500 people" in c.claim.sentence)
    assert plain.claim.context == ""


@pytest.mark.parametrize(
    "fragment",
    [
        "Sanctuary does not mean safer streets",
        "cities are becoming more dangerous due to “sanctuary” policies",
        "higher crime rates",
        "flood the zone, especially in sanctuary jurisdictions",
        "detained nearly 1,500 people",
    ],
)
def test_the_seed_claims_a_desk_checks_are_claims(fragment: str, seed_claims: list) -> None:
    assert [c for c in seed_claims if fragment in c.claim.sentence]


def test_the_seeds_are_not_all_claims(seed_claims: list) -> None:
    sentences = sum(len(article_sentences(path.read_text(encoding="utf-8"))) for path in SEEDS)
    assert len(seed_claims) / sentences < 0.6
    assert not [c for c in seed_claims if "contributed to this story" in c.claim.sentence]


@pytest.mark.skipif(not BBC.is_file(), reason="BBC News corpus not found in ../shared/data")
@pytest.mark.parametrize(
    ("article_id", "fragment"),
    [
        ("politics/350", "raising taxes 66 times"),
        ("politics/153", "failed to remove 250,000 failed asylum seekers"),
        ("politics/087", "only two out of 10 asylum seekers"),
        ("politics/237", "asylum cost £2bn a year"),
    ],
)
def test_politicians_contested_bbc_claims_are_claims(article_id: str, fragment: str, scorer: Scorer) -> None:
    with open(BBC, encoding="utf-8") as handle:
        text = next(record["text"] for record in map(json.loads, handle) if record["id"] == article_id)
    _, claims = extract_articles([ArticleText(text, "hash")], scorer)
    assert [claim for _, claim in claims if fragment in claim.sentence]
