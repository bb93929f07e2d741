"""Ranking signals (pipeline.nlp.ranking) on real-looking news sentences, and what the
extraction and the command line carry of them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.extract import ArticleText, extract_articles
from pipeline.nlp.checkworthiness import load_scorer
from pipeline.nlp.contestability import ClaimView, load_model
from pipeline.nlp.ranking import named_entities, rank_signals

ROOT = Path(__file__).resolve().parents[2]


def signals(sentence: str, *, claim_type: str = "other", claim_types: tuple[str, ...] = (), quantities: tuple[dict[str, Any], ...] = (),
            speaker: str = "", speaker_title: str = "", attribution: str = "article") -> dict[str, float | str]:
    return rank_signals(
        sentence=sentence, claim_type=claim_type, claim_types=list(claim_types) or [claim_type], quantities=list(quantities),
        speaker=speaker, speaker_title=speaker_title, attribution=attribution,
    )


TIMES_66 = {"text": "66 times", "value": 66.0, "unit": "times", "hedge": "exact"}


def test_a_partys_tax_claim_is_public_interest_from_a_top_source_and_specific() -> None:
    result = signals(
        "The Conservatives say Labour has raised taxes 66 times since 1997.",
        claim_type="numeric", quantities=(TIMES_66,), speaker="Conservatives", attribution="reported",
    )
    assert result["topic"] == "economy" and float(result["public_interest"]) >= 0.7
    assert result["source"] == 1.0
    assert float(result["specificity"]) >= 0.8  # a number, a named source, a named party, a year
    assert result["routine"] == 0.0


def test_company_results_are_routine_and_of_no_public_interest() -> None:
    result = signals(
        "Quarterly profits at US media giant TimeWarner jumped 76% to $1.13bn for the three months to December.",
        claim_type="numeric", claim_types=("numeric", "comparison"),
        quantities=({"text": "76%", "value": 76.0, "unit": "percent"}, {"text": "$1.13bn", "value": 1.13e9, "unit": "USD"}),
    )
    assert (result["public_interest"], result["topic"]) == (0.0, "")
    assert float(result["routine"]) > 0
    assert result["source"] == 0.2  # the article's own assertion


@pytest.mark.parametrize(
    ("sentence", "topic"),
    [
        ("Home Secretary David Blunkett said 250,000 failed asylum seekers were still in the country.", "immigration"),
        ("Only two out of 10 asylum seekers are removed.", "immigration"),
        ("Violent crime rose 12 percent in the city last year.", "crime"),
        ("Scotland Yard said there had been 11 arrests.", "crime"),
        ("NHS waiting lists are the longest for a decade.", "health"),
        ("Unemployment fell to 4.7%, the lowest since 1975.", "economy"),
        ("The asylum system cost the taxpayer £2bn last year.", "immigration"),
        ("The government spent £2bn of public funds on consultants.", "public_money"),
        ("Labour's manifesto promises a vote on the constitution.", "elections"),
        ("Class sizes in primary schools have grown.", "education"),
        ("Carbon emissions rose for the third year.", "environment"),
        ("More than 1,000 troops will be sent to Iraq.", "security"),
    ],
)
def test_topics_of_public_concern(sentence: str, topic: str) -> None:
    result = signals(sentence)
    assert result["topic"] == topic and float(result["public_interest"]) > 0


def test_topics_match_whole_words_case_insensitively_and_acronyms_exactly() -> None:
    assert signals("TAXES WENT UP.")["topic"] == "economy"
    assert signals("The taxidermist opened a shop.")["topic"] == ""  # "tax" inside a word
    assert signals("ICE agents arrested him.")["topic"] in {"immigration", "crime"}
    assert signals("The ice on the pond was thin.")["topic"] == ""  # not the agency
    assert signals("Pre-tax profits rose 5%.")["topic"] == ""  # a company's profit line is not tax policy


def test_more_terms_of_a_topic_make_it_stronger_and_the_strongest_topic_wins() -> None:
    one = signals("Prices went up.")
    three = signals("Inflation pushed up prices and interest rates.")
    assert (one["topic"], three["topic"]) == ("economy", "economy")
    assert float(three["public_interest"]) > float(one["public_interest"])
    assert signals("Police said the murder and two assaults followed a rise in migrants.")["topic"] == "crime"


@pytest.mark.parametrize(
    ("speaker", "title", "attribution", "expected"),
    [
        ("David Blunkett", "Home Secretary", "reported", 1.0),
        ("Todd Lyons", "Acting ICE Director", "direct_quote", 1.0),
        ("Michelle Wu", "Mayor", "direct_quote", 1.0),
        ("Todd Lyons", "Acting Immigration and Customs Enforcement Director", "reported", 1.0),
        ("Josh Kraft", "Mayoral candidate", "direct_quote", 1.0),
        ("Conservatives", "", "reported", 1.0),
        ("the Lib Dems", "", "reported", 1.0),
        ("Scotland Yard", "", "reported", 1.0),
        ("Downing Street", "", "reported", 1.0),
        ("ICE", "", "reported", 1.0),
        ("Sarah Jones", "Labour MP", "direct_quote", 1.0),
        ("John Smith", "a police spokesman", "reported", 1.0),
        ("Jane Doe", "an economist at Capital Economics", "reported", 0.6),
        ("Institute for Fiscal Studies", "", "reported", 0.6),
        ("Deloitte", "chief executive", "reported", 0.6),
        ("Tréa Lavery", "", "direct_quote", 0.4),
        ("Michael Howard", "Mr", "reported", 0.4),  # a form of address is not a title
        ("Jane Smith", "Dr", "reported", 0.6),
        ("BBC News", "", "article", 0.2),
        ("Conservatives", "", "article", 0.2),  # the article asserts it, whatever the name
    ],
)
def test_source_prominence(speaker: str, title: str, attribution: str, expected: float) -> None:
    assert signals("They said so.", speaker=speaker, speaker_title=title, attribution=attribution)["source"] == expected


def test_specificity_counts_numbers_comparisons_sources_names_and_dates() -> None:
    assert signals("It is a disgrace.")["specificity"] == 0.0
    assert signals("It is a disgrace.", speaker="Jo Bloggs", attribution="direct_quote")["specificity"] == 0.2
    number = signals("It rose by 5%.", quantities=({"value": 5.0, "unit": "percent"},))
    trend = signals("Crime is rising.", claim_type="comparison")
    assert (number["specificity"], trend["specificity"]) == (0.4, 0.2)
    named = signals("Ministers in Westminster and Cardiff disagree.")  # two names after the first word
    assert named["specificity"] == 0.2
    full = signals(
        "The Conservatives say Labour has raised taxes 66 times since 1997.",
        claim_type="numeric", claim_types=("numeric", "comparison"), quantities=(TIMES_66,), speaker="Conservatives",
        attribution="reported",
    )
    assert full["specificity"] == 1.0  # capped


def test_named_entities_are_runs_of_capitalised_words() -> None:
    assert named_entities("Home Secretary David Blunkett said it.") == 1
    assert named_entities("Yesterday Home Secretary David Blunkett said it in May.") == 1  # a month is not a name
    assert named_entities("The firm said Microsoft and Apple agreed.") == 2
    assert named_entities("Prices rose.") == 0  # capitalised by its position only


@pytest.mark.parametrize(
    "sentence",
    [
        "Chelsea beat Arsenal 2-1 at Stamford Bridge on Saturday.",
        "The striker scored twice in the Premiership match.",
        "The film took $60m at the US box office.",
        "The singer's new album went straight to number one in the charts.",
        "Shares in the retailer rose 3% after sales beat analysts' forecasts.",
    ],
)
def test_routine_news(sentence: str) -> None:
    result = signals(sentence)
    assert float(result["routine"]) > 0


def test_public_interest_cancels_business_routine_and_halves_sport() -> None:
    assert signals("The company paid no corporation tax last year.")["routine"] == 0.0  # public interest: tax
    alone = signals("The striker scored in the Premiership match.")
    with_crime = signals("Police arrested the striker who scored in the Premiership match.")
    assert float(with_crime["routine"]) == pytest.approx(float(alone["routine"]) / 2)
    assert signals("The minister met nurses at the hospital.")["routine"] == 0.0


def test_signals_are_in_range_and_rounded() -> None:
    result = signals("Inflation, interest rates, prices, wages and pensions all rose 3% in May, the ONS said.",
                     quantities=({"value": 3.0},), speaker="ONS", attribution="reported")
    for name in ("public_interest", "source", "specificity", "routine"):
        value = float(result[name])
        assert 0.0 <= value <= 1.0 and round(value, 4) == value


def test_extraction_fills_each_claims_signals_and_an_empty_context() -> None:
    text = "The Conservatives say Labour has raised taxes 66 times since 1997."
    _, claims = extract_articles([ArticleText(text, "h")], load_scorer())
    [(_, claim)] = claims
    expected = rank_signals(
        sentence=claim.sentence, claim_type=claim.claim_type, claim_types=claim.claim_types, quantities=claim.quantities,
        speaker=claim.speaker, speaker_title=claim.speaker_title, attribution=claim.attribution,
    )
    view = ClaimView(claim.sentence, claim.score, claim.claim_type, claim.claim_types, claim.attribution, expected)
    assert claim.signals == {**expected, "contestability": round(load_model().probability(view), 4)}
    assert claim.signals["topic"] == "economy" and claim.context == ""
    # A party's charge against another, with a figure: what a desk takes.
    assert claim.signals["contestability"] > 0.5


def test_command_line_prints_signals_and_context(tmp_path: Path) -> None:
    article = tmp_path / "article.txt"
    article.write_text("Quarterly profits at US media giant TimeWarner jumped 76% to $1.13bn for the three months to December.\n")
    result = subprocess.run([sys.executable, "-m", "pipeline", "extract", str(article)], cwd=ROOT, capture_output=True, text=True, check=True)
    [claim] = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert claim["context"] == ""
    assert claim["signals"]["routine"] > 0 and claim["signals"]["public_interest"] == 0.0


def test_lexicon_entries_match_whole_words_longest_first() -> None:
    # "asylum seekers" is one term of immigration, not two ("asylum", "asylum seekers").
    assert signals("The asylum seekers were moved.")["public_interest"] == 0.7
    assert signals("Asylum applications and deportations rose.")["public_interest"] == 0.85  # two terms
    assert signals("The tax-free allowance rose.")["topic"] == "economy"  # a hyphen splits words
    assert signals("They said so.", speaker="Labour's Ed Balls", attribution="reported")["source"] == 1.0  # possessive
    assert signals("The vaccines arrived.")["topic"] == "health"  # "vaccine(s)": the plural too
