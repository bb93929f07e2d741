"""The verification stage's reading of a claim (pipeline/nlp/verification.py): names, the
other content words, figures with their scale, years, negation; and the features of a pair."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.nlp.verification import VERIFY_FEATURES, Verifier, claim_parts, pair_features


def test_a_claims_parts() -> None:
    parts = claim_parts("Germany's economy shrank 0.2% in the last three months of 2004, Mr Eichel's office said.")
    assert {"germany", "eichel"} <= parts.names and "economy" in parts.content and "economy" not in parts.names
    assert parts.numbers == {0.2} and parts.years == {2004} and not parts.negated
    money = claim_parts("The Clinton Foundation moved $1.8bn (£1.3 billion) to Qatar, 1,500 people said.")
    assert {1.8e9, 1.3e9, 1500.0} <= money.numbers and "qatar" in money.names
    assert claim_parts("Two-thirds of our economy is a consumer economy.").numbers == {2.0}
    assert claim_parts("Our economy is not growing.").negated and claim_parts("It didn't grow.").negated
    assert not claim_parts("The economy is growing fast.").negated


def test_a_pairs_features_tell_another_actor_and_another_figure() -> None:
    claim = claim_parts("Last week, Yukos filed for Chapter 11 bankruptcy protection in the US.")
    repeat = claim_parts("Yukos has filed for Chapter 11 bankruptcy protection in a US court.")
    impostor = claim_parts("Retail chain Nordstrom filed for Chapter 11 bankruptcy after Scott Baio boycotts.")
    named = dict(zip(VERIFY_FEATURES, pair_features(claim, repeat, 2.0, 0.9, 0.8), strict=True))
    other = dict(zip(VERIFY_FEATURES, pair_features(claim, impostor, 2.0, 0.6, 0.4), strict=True))
    assert named["names_check_missing"] == 0 and other["names_check_missing"] >= 3  # nordstrom, scott, baio
    assert named["names_both_covered"] > other["names_both_covered"]
    five = claim_parts("Uninsured voters were 5% of the electorate in 2010.")
    fifteen = claim_parts("In 2012, uninsured voters were 15 percent of the electorate.")
    ten = dict(zip(VERIFY_FEATURES, pair_features(five, fifteen, 0.0, 0.0, 0.0), strict=True))
    assert (ten["numbers_conflict"], ten["years_conflict"]) == (1.0, 1.0)


def test_the_base_rate_shifts_the_odds_and_a_bad_one_is_refused() -> None:
    verifier = Verifier(("x",), np.array([1.0]), 0.0, np.array([0.0]), np.array([1.0]), training_base_rate=0.1, base_rate=0.1)
    at = verifier.probability(np.array([[0.0]]))[0]
    assert at == pytest.approx(0.5)
    lower = verifier.probability(np.array([[0.0]]), base_rate=0.01)[0]
    assert lower / (1 - lower) == pytest.approx((0.01 / 0.99) / (0.1 / 0.9))
    with pytest.raises(ValueError, match="base rate"):
        verifier.probability(np.array([[0.0]]), base_rate=0.0)
    with pytest.raises(ValueError, match="expects 1 features"):
        verifier.probability(np.array([[0.0, 1.0]]))
