"""Claim typing: the product's triage categories and their documented priority order."""

from __future__ import annotations

import pytest

from pipeline.nlp.claim_types import CLAIM_TYPES, classify_claim, is_quoted_speech
from pipeline.nlp.quantities import parse_quantities


def test_claim_types_constant() -> None:
    assert CLAIM_TYPES == ("numeric", "comparison", "causal", "quote", "official_action", "prediction", "other")


@pytest.mark.parametrize(
    ("sentence", "primary"),
    [
        # numeric
        ("An enforcement operation in May detained nearly 1,500 people.", "numeric"),
        ("Wu said Boston has been receiving those grants for 22 years.", "numeric"),
        ("The vast majority of officers support the policy.", "numeric"),
        # comparison / trend, with or without a number
        ("Sanctuary cities have higher crime rates.", "comparison"),
        ("The nation's cities are becoming more dangerous.", "comparison"),
        ("Their approach to immigration law keeps the city safer.", "comparison"),
        ("Homicides are rising across the region.", "comparison"),
        ("Deportations doubled under the new policy.", "comparison"),
        ("Arrests hit a record high.", "comparison"),
        ("Crime is lower than it was a decade ago.", "comparison"),
        # causal
        ("Innocent people are harmed due to government negligence.", "causal"),
        ("The policy caused confusion among residents.", "causal"),
        ("The cuts resulted in layoffs.", "causal"),
        ("Officers stayed quiet because they feared being fired.", "causal"),
        # official / legal action
        ("The city filed a lawsuit against the administration.", "official_action"),
        ("A judge deemed the funding cuts unconstitutional.", "official_action"),
        ("In March, she testified before a congressional committee.", "official_action"),
        ("The government withheld funds for city homelessness programs.", "official_action"),
        ("The administration has threatened to sue sanctuary jurisdictions.", "official_action"),
        ("The governor signed the bill on Friday.", "official_action"),
        ("Agents arrested a man outside the courthouse.", "official_action"),
        # prediction / pledge
        ("ICE will keep doing this.", "prediction"),
        ("We're going to continue to apply for those grant funds.", "prediction"),
        ("Lyons pledged to flood the zone.", "prediction"),
        ("The mayor vowed to fight back.", "prediction"),
        ("The city plans to appeal.", "prediction"),
        # quote only
        ("“Here is our response, and it is final,” Wu said.", "quote"),
        # nothing checkable
        ("Read the original article on MassLive.", "other"),
        ("It’s no surprise local law enforcement has finally had enough.", "other"),
    ],
)
def test_primary_type(sentence: str, primary: str) -> None:
    got, matches = classify_claim(sentence)
    assert got == primary, matches
    assert matches[0] == got


def test_all_matches_are_returned_in_priority_order() -> None:
    sentence = "Sanctuary cities like Boston have given cover to criminals, leading to higher crime rates."
    primary, matches = classify_claim(sentence)
    assert primary == "comparison"
    assert matches == ["comparison", "causal"]
    primary, matches = classify_claim("“We are ready for court,” she said, after the city sued over withheld funds and vowed to appeal.")
    assert matches == ["official_action", "prediction", "quote"]
    primary, matches = classify_claim("Crime rose 20% last year because of the policy, and the city will appeal.")
    assert matches == ["numeric", "comparison", "causal", "prediction"]


def test_quoted_prediction_is_prediction_with_quote() -> None:
    primary, matches = classify_claim("“And Boston will not back down from who we are,” Wu said.")
    assert primary == "prediction"
    assert "quote" in matches


def test_prediction_scoping_a_comparison_is_primary() -> None:
    # "100%" is an intensifier, not a statistic; the comparison lives inside the prediction.
    primary, matches = classify_claim("But 100%, you will see a larger ICE presence.")
    assert primary == "prediction"
    assert "comparison" in matches and "numeric" not in matches
    primary, _ = classify_claim("Boston “100%” will have an increased ICE presence, Lyons said.")
    assert primary == "prediction"


def test_statistic_100_percent_is_numeric() -> None:
    assert classify_claim("Turnout reached 100% of registered voters.")[0] == "numeric"


def test_scare_quotes_and_titles_are_not_quotes() -> None:
    assert "quote" not in classify_claim("They’ll be called “collaborators” by the media.")[1]
    assert "quote" not in classify_claim("The interview aired on “The Howie Carr Show.”")[1]
    assert not is_quoted_speech("sanctuary")
    assert not is_quoted_speech("The Howie Carr Show.")
    assert is_quoted_speech("flood the zone")


def test_has_quote_override_and_unbalanced_marks() -> None:
    inside = "It means more criminal aliens out and about the neighborhood."
    assert "quote" not in classify_claim(inside)[1]
    assert classify_claim(inside, has_quote=True)[1][-1] == "quote"
    assert "quote" in classify_claim("“Sanctuary does not mean safer streets.")[1]
    assert "quote" not in classify_claim("“Sanctuary does not mean anything,” he said.", has_quote=False)[1]


def test_will_as_noun_or_name_is_not_prediction() -> None:
    assert "prediction" not in classify_claim("It was the will of the voters.")[1]
    assert "prediction" not in classify_claim("The senator met Will Smith.")[1]


def test_precomputed_quantities_are_used() -> None:
    sentence = "ICE detained nearly 1,500 people."
    assert classify_claim(sentence, quantities=parse_quantities(sentence))[0] == "numeric"
    assert classify_claim(sentence, quantities=[])[0] == "official_action"

