"""The verification stage's reading of a claim (pipeline/nlp/verification.py): names, the
other content words, figures with their scale, years, negation; and the features of a pair."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.nlp.verification import VERIFY_FEATURES, ClaimParts, Verifier, claim_parts, pair_features


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


def test_a_check_of_what_a_picture_shows_needs_a_claim_that_points_at_one() -> None:
    photo = claim_parts("A photograph shows a young Barack Obama with Saudi Arabian prince Al-Waleed bin Talal.")
    assert photo.media_claim and photo.media_cue
    stock = claim_parts("Disney and Saudi Arabian prince Al-Walid bin Talal will buy the new stock.")
    pictured = claim_parts("Barack Obama was pictured as a young man with the Saudi prince Al-Waleed bin Talal.")
    tweet = claim_parts("Young Obama with prince Al-Waleed!#throwbackpic.twitter.com/AbC123 — Someone (@some1) May 4, 2017")
    assert not stock.media_claim and not stock.media_cue and pictured.media_cue and tweet.media_cue

    def uncued(claim: ClaimParts, check: ClaimParts) -> float:
        return dict(zip(VERIFY_FEATURES, pair_features(claim, check, 2.0, 0.8, 0.5), strict=True))["media_uncued"]

    assert (uncued(stock, photo), uncued(pictured, photo), uncued(tweet, photo)) == (1.0, 0.0, 0.0)
    assert uncued(photo, stock) == 1.0  # either way round
    assert uncued(stock, claim_parts("A report shows unemployment rose to 5% in 2004.")) == 0.0  # no picture either side


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


def test_a_verifier_of_an_earlier_release_reads_its_own_features() -> None:
    # A desk's promoted refit keeps the features it was fitted on when a release adds one.
    earlier = tuple(name for name in VERIFY_FEATURES if name != "media_uncued")
    n = len(earlier)
    model = {"features": list(earlier), "coefficients": [0.1] * n, "intercept": -1.0, "mean": [0.0] * n, "scale": [1.0] * n,
             "training_base_rate": 0.1, "base_rate": 0.01}
    verifier = Verifier.from_json(model)
    now = np.random.default_rng(0).random((3, len(VERIFY_FEATURES)))
    own = now[:, [VERIFY_FEATURES.index(name) for name in earlier]]
    assert np.allclose(verifier.probability(now), verifier.probability(own))
    with pytest.raises(ValueError, match="verifier expects"):
        verifier.probability(now[:, :5])
    with pytest.raises(ValueError, match="does not compute: sarcasm"):
        Verifier.from_json({**model, "features": [*earlier[:-1], "sarcasm"]})
