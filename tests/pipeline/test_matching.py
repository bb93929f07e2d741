"""Claim matching (pipeline/nlp/matching.py) and `python -m pipeline match`."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from pipeline.__main__ import main
from pipeline.nlp.matching import (
    BACKGROUND_FILE,
    Artifact,
    Background,
    LibraryError,
    MatchIndex,
    normalise,
    parse_date,
    read_artifact,
    read_library,
    terms,
    tweet_date,
)
from pipeline.nlp.segment import split_sentences
from tests.conftest import ROOT

SEED = ROOT / "seeds" / "002_a4664de892463d8e.txt"

LIBRARY = [
    {
        "id": "ice-1500",
        "claim": "Immigration and Customs Enforcement arrested almost 1,500 people during a weeks-long operation in Massachusetts in May.",
        "title": "Did ICE Detain About 1,500 People in Massachusetts?",
        "rating": "True",
        "date": "2025-06-03",
    },
    {"id": "ice-boston-troops", "claim": "The National Guard has been deployed to Boston to help immigration agents.", "title": "National Guard in Boston?"},
    {"id": "ice-1500-texas", "claim": "Police in Texas arrested 1,500 protesters at a rally in Austin.", "rating": "False"},
    {"id": "mayor-wu", "claim": "Boston Mayor Michelle Wu said the city will not cooperate with federal immigration enforcement."},
    {"id": "vaccine", "claim": "The measles vaccine causes autism in children.", "summary": "A long-debunked claim resurfaced online."},
    {"id": "moon", "claim": "NASA faked the 1969 Moon landing in a film studio."},
    {"id": "wind", "claim": "Wind turbines kill more birds than cats do.", "title": "Do Wind Turbines Kill More Birds Than Cats?"},
]


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(LIBRARY)


@pytest.fixture()
def library_file(tmp_path: Path) -> Path:
    path = tmp_path / "library.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in LIBRARY), encoding="utf-8")
    return path


def seed_sentences() -> list[str]:
    text = SEED.read_text(encoding="utf-8")
    return [text[s.start : s.end] for s in split_sentences(text)]


def test_seed_claim_matches_its_paraphrase_at_rank_1(index: MatchIndex) -> None:
    sentences = seed_sentences()
    claim = next(s for s in sentences if "nearly 1,500" in s)
    [matches] = index.match([claim], top=3)
    assert matches[0][0] == "ice-1500"
    assert all(score < matches[0][1] for _, score in matches[1:])
    # Across the whole article, that sentence is the one the paraphrase matches best.
    scored = [(dict(result).get("ice-1500", 0.0), sentence) for sentence, result in zip(sentences, index.match(sentences, top=7), strict=True)]
    assert max(scored)[1] == claim


BROAD = "ICE arrested 1,500 people in Boston, Massachusetts and Texas; the National Guard and police helped immigration agents"


def test_results_best_first_and_top_limits(index: MatchIndex) -> None:
    texts = ["Wind turbines kill birds", "The Moon landing was faked by NASA", BROAD]
    results = index.match(texts, top=3)
    # Only entries sharing a word with the text are candidates, so a text may get fewer.
    assert [len(r) for r in results] == [1, 1, 3]
    assert results[0][0][0] == "wind"
    assert results[1][0][0] == "moon"
    assert {entry for entry, _ in results[2]} <= {"ice-1500", "ice-boston-troops", "ice-1500-texas", "mayor-wu"}
    for result in results:
        scores = [score for _, score in result]
        assert scores == sorted(scores, reverse=True)
    assert index.match(texts, top=2) == [r[:2] for r in results]
    assert index.match(texts, top=1) == [r[:1] for r in results]
    assert len(index.match([BROAD], top=10)[0]) == 4


SHORT_1500 = "ICE detained nearly 1,500 people in Massachusetts in May."


def test_a_library_of_one_verdict_scores_a_repeat_as_a_match() -> None:
    """A desk's library starts with its first approved verdict. The idf add the training
    library's document frequencies (matching.Background), so a repeat of that verdict's claim
    scores as it would against thousands of checks, and an unrelated claim does not match."""
    artifact = read_artifact()
    library = [{"id": "ours", "claim": SHORT_1500}]
    index = MatchIndex.build(library, artifact)
    # Badged, though well under the 0.99 the re-rankers give it: the verifier's correction for
    # their trust in shared character n-grams (learnt where no pair was this close) weighs against
    # a check's own words when the re-rankers are not sure (docs/matching.md, known misses).
    assert index.match([SHORT_1500], top=1)[0][0][1] >= BADGE
    # The paraphrase names ICE only as "immigration agents": the verifier (pipeline.nlp.verification)
    # finds the names disagree, so it is a lead (0.03 at a 1 % base rate), still above anything unrelated.
    [[(_, paraphrase)]] = index.match(["Immigration agents arrested almost 1,500 people in Massachusetts in May."], top=1)
    unrelated = ["About 1,500 people attended the concert.", "Massachusetts voters approved the budget.", "The Red Sox won 12 games in May."]
    assert all(not matches or matches[0][1] < min(paraphrase, 0.05) for matches in index.match(unrelated, top=1))
    # Without the background the same repeat scored 0.13: the idf of a one-entry library.
    bare = MatchIndex.build(library, Artifact({name: data for name, data in artifact.files.items() if name != BACKGROUND_FILE}))
    assert bare.match([SHORT_1500], top=1)[0][0][1] < 0.5


def test_the_background_round_trips_through_its_bytes() -> None:
    artifact = read_artifact()
    background = Background.from_artifact(artifact, 30_522)
    assert background.documents == 13_825 and background.term_df["ice"] > 0 and background.gram_df.sum() > 0
    again = Background.from_artifact(Artifact({BACKGROUND_FILE: background.to_bytes()}), 30_522)
    assert again.documents == background.documents and again.term_df == background.term_df
    assert (again.gram_df == background.gram_df).all() and (again.piece_df == background.piece_df).all()


def test_min_score_leaves_out_the_unlikely_matches_and_nothing_else(index: MatchIndex) -> None:
    results = index.match([BROAD], top=4)
    scores = [score for _, score in results[0]]
    floor = (scores[1] + scores[2]) / 2  # between the second and the third
    assert index.match([BROAD], top=4, min_score=floor) == [results[0][:2]]
    assert index.match([BROAD], top=4, min_score=scores[-1]) == results  # at a score, that match stays
    assert index.match([BROAD], top=4, min_score=1.0) == [[]]


def test_empty_and_unknown_texts_get_no_matches(index: MatchIndex) -> None:
    assert index.match(["", "   ", "the of and", "zzzz qqqq"], top=5) == [[], [], [], []]
    assert index.match([], top=5) == []


def test_deterministic_and_survives_pickling(index: MatchIndex) -> None:
    texts = seed_sentences()
    first = index.match(texts, top=5)
    assert index.match(texts, top=5) == first
    assert MatchIndex.build(LIBRARY).match(texts, top=5) == first
    restored = pickle.loads(pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
    assert restored.match(texts, top=5) == first


def test_batch_does_not_change_results(index: MatchIndex) -> None:
    texts = seed_sentences()
    together = index.match(texts, top=3)
    assert [index.match([t], top=3)[0] for t in texts] == together


def test_dates_are_used_when_both_are_known(index: MatchIndex) -> None:
    claim = "ICE detained nearly 1,500 people in Massachusetts."
    [undated] = index.match([claim], top=1)
    [near] = index.match([claim], top=1, dates=[date(2025, 6, 1)])
    [far] = index.match([claim], top=1, dates=[date(2015, 6, 1)])
    assert undated[0][0] == near[0][0] == far[0][0] == "ice-1500"
    assert near[0][1] > far[0][1]


def test_tweet_normalisation() -> None:
    tweet = "Iran's #FreeIran2020 @realDonaldTrump killed 1,500 pic.twitter.com/uB3zOG5EKA https://t.co/x — M. Hanif Jazayeri (@HanifJazayeri) January 5, 2020"
    text = normalise(tweet)
    assert "pic.twitter" not in text and "t.co" not in text and "@" not in text and "#" not in text
    assert "Free Iran 2020" in text and "real Donald Trump" in text and "1500" in text and "Hanif Jazayeri" in text
    assert "January" not in text
    assert tweet_date(tweet) == date(2020, 1, 5)
    assert terms("The claims were checked") == ["claim", "checked"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2019-06-05", date(2019, 6, 5)), ("2019-06-05T10:00:00Z", date(2019, 6, 5)), ("5 June 2019", date(2019, 6, 5)), ("June 5, 2019", date(2019, 6, 5))],
)
def test_parse_date(value: str, expected: date) -> None:
    assert parse_date(value) == expected


@pytest.mark.parametrize("value", ["", None, "yesterday", "31 February 2019", "2019-13-01"])
def test_parse_date_rejects(value: str | None) -> None:
    assert parse_date(value) is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not JSON"),
        ("[1, 2]", "line 2: expected a JSON object, got list"),
        ('{"claim": "x"}', 'line 2: missing "id"'),
        ('{"id": "b"}', 'line 2: missing "claim"'),
        ('{"id": "b", "claim": "  "}', 'line 2: "claim" must be a non-empty string'),
        ('{"id": true, "claim": "x"}', 'line 2: "id" must be a non-empty string or an integer'),
        ('{"id": "a", "claim": "x"}', 'line 2: duplicate id "a"'),
        ('{"id": "b", "claim": "x", "rating": 3}', 'line 2: "rating" must be a string'),
        ('{"id": "b\\tc", "claim": "x"}', 'line 2: "id" must not contain tabs or line breaks'),
    ],
)
def test_read_library_names_the_bad_line(line: str, message: str) -> None:
    with pytest.raises(LibraryError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_library(['{"id": "a", "claim": "A claim."}', line])


def test_read_library_keeps_known_fields_and_skips_blank_lines() -> None:
    entries = read_library(["", '{"id": 7, "claim": "c", "title": "t", "rating": "False", "extra": 1}', "  "])
    assert entries == [{"id": "7", "claim": "c", "title": "t", "rating": "False"}]


def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[str], stdin: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(stdin))
    code = main(["match", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_output_format_order_and_top(capsys, monkeypatch, library_file: Path, index: MatchIndex) -> None:
    claims = [BROAD, "", "ICE detained nearly 1,500 people in Massachusetts", "Wind turbines kill more birds than cats"]
    code, out, err = run_cli(capsys, monkeypatch, [str(library_file), "--top", "2"], "\n".join(claims) + "\n")
    assert code == 0 and err == ""
    lines = out.split("\n")
    assert lines[-1] == "" and len(lines) == len(claims) + 1
    expected = index.match(claims, top=2)
    for line, matches in zip(lines, expected, strict=False):
        assert line == "\t".join(f"{entry}\t{score:.6f}" for entry, score in matches)
    assert len(lines[0].split("\t")) == 4
    assert lines[1] == ""
    assert lines[2].split("\t")[0] == "ice-1500"
    assert lines[3].split("\t")[0] == "wind"
    code, out, _ = run_cli(capsys, monkeypatch, [str(library_file)], BROAD + "\n")
    assert len(out.rstrip("\n").split("\t")) == 2 * 4


def test_cli_bad_library_line(capsys, monkeypatch, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "claim": "fine"}\n{"id": "b"}\n', encoding="utf-8")
    code, out, err = run_cli(capsys, monkeypatch, [str(path)], "anything\n")
    assert code == 2 and out == ""
    assert err.strip() == f'{path}: line 2: missing "claim"'


def test_cli_missing_library_and_bad_options(capsys, monkeypatch, library_file: Path, tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, monkeypatch, [str(tmp_path / "nope.jsonl")], "")
    assert code == 2 and "No such file" in err
    code, _, err = run_cli(capsys, monkeypatch, [str(library_file), "--top", "0"], "")
    assert code == 2 and "--top" in err
    code, _, err = run_cli(capsys, monkeypatch, [str(library_file), "--date", "soon"], "")
    assert code == 2 and "--date" in err


def test_cli_as_a_process(library_file: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pipeline", "match", str(library_file), "--top", "1"],
        cwd=ROOT,
        input="Do wind turbines kill more birds than cats?\n",
        capture_output=True,
        text=True,
        check=True,
    )
    entry, score = result.stdout.rstrip("\n").split("\t")
    assert entry == "wind" and 0 < float(score) <= 1


# Issue 28: BBC News claims the matcher of 2026-11-25 badged against checks of another claim
# about the same people or subject (docs/matching.md, "Same claim, not same topic").
IMPOSTORS = [
    ("Germany's economy shrank 0.2% in the last three months of 2004, upsetting hopes of a sustained recovery.", "rubio-economy"),
    ("The US Disney Corporation and Saudi Arabian prince Al-Walid bin Talal, the firm's two main shareholders, will buy the new stock.", "obama-photo"),
    ("Jackie Stallone, mother of actor Sylvester, has become the first star to be evicted from Celebrity Big Brother.", "stallone-hoax"),
    ("Last week, Yukos filed for Chapter 11 bankruptcy protection in the US in a last-ditch attempt to hang on to Yuganskneftegas.", "nordstrom"),
    ("MCI was renamed after it emerged from Chapter 11 bankruptcy protection in April last year.", "nordstrom"),
    ("US Airways is in Chapter 11 bankruptcy protection for the second time in two years, and battling to cut costs.", "nordstrom"),
]
IMPOSTOR_LIBRARY = [
    {"id": "rubio-economy", "claim": "Our economy actually shrank during the last three months of 2012.", "rating": "true"},
    {"id": "obama-photo", "claim": "A photograph shows a young Barack Obama with Saudi Arabian prince Al-Waleed bin Talal."},
    {"id": "stallone-hoax", "claim": "Actor Sylvester Stallone has been killed in a car accident in Australia."},
    {"id": "nordstrom", "claim": "Retail chain Nordstrom filed for Chapter 11 bankruptcy after Scott Baio boycotts."},
    *LIBRARY,
]
# The shipped badge threshold (FACTCHECK_CHECKED_BEFORE_MIN_SCORE's default), which
# `python -m pipeline.train_verification fit` chose on the train half of the news matching set.
BADGE = read_artifact().metadata["verifier"]["badge_threshold"]


@pytest.fixture(scope="module")
def impostor_index() -> MatchIndex:
    return MatchIndex.build(IMPOSTOR_LIBRARY)


@pytest.mark.parametrize(("text", "entry"), IMPOSTORS)
def test_same_topic_impostors_are_not_badged_against_a_library_that_holds_them(impostor_index: MatchIndex, text: str, entry: str) -> None:
    [found] = impostor_index.match([text], top=1)
    assert found and found[0][0] == entry  # retrieval still finds it ...
    assert found[0][1] < BADGE, found  # ... and verification says it is another claim


def test_without_verification_the_impostors_were_badged(impostor_index: MatchIndex) -> None:
    verifier = impostor_index.verifier
    try:
        impostor_index.verifier = None
        assert sum(found[0][1] >= BADGE for found in impostor_index.match([text for text, _ in IMPOSTORS], top=1)) >= 2
    finally:
        impostor_index.verifier = verifier


def test_a_paraphrase_of_a_seed_claim_is_badged(index: MatchIndex) -> None:
    claim = next(s for s in seed_sentences() if "nearly 1,500" in s)
    [matches] = index.match([claim], top=1)
    assert matches[0][0] == "ice-1500" and matches[0][1] >= BADGE


def test_the_base_rate_a_desk_sets_moves_the_probability(monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.nlp.matching import BASE_RATE_ENV, MatchConfig

    claim = next(s for s in seed_sentences() if "nearly 1,500" in s)
    assumed = MatchIndex.build(LIBRARY).match([claim], top=1)[0][0][1]
    monkeypatch.setenv(BASE_RATE_ENV, "0.2")
    assert MatchConfig().base_rate == 0.2
    assert MatchIndex.build(LIBRARY).match([claim], top=1)[0][0][1] > assumed
    monkeypatch.setenv(BASE_RATE_ENV, "0.0001")
    assert MatchIndex.build(LIBRARY).match([claim], top=1)[0][0][1] < assumed
    monkeypatch.setenv(BASE_RATE_ENV, "1.5")
    with pytest.raises(ValueError, match=BASE_RATE_ENV):
        MatchConfig()


def test_the_badge_threshold_is_the_one_chosen_on_the_train_half() -> None:
    from django.conf import settings

    if "FACTCHECK_CHECKED_BEFORE_MIN_SCORE" in os.environ:
        pytest.skip("the environment sets its own badge threshold")
    assert settings.FACTCHECK_CHECKED_BEFORE_MIN_SCORE == BADGE


def test_pairs_left_unread_under_the_floor_change_nothing(impostor_index: MatchIndex) -> None:
    # Verification skips the pairs whose ceiling (Verifier.ceiling: their retrieval features, every
    # part at its most favourable) is under the caller's floor; what is kept must be what reading
    # every pair and then applying the floor gives.
    texts = [text for text, _ in IMPOSTORS] + seed_sentences()[:40]
    for floor in (0.0005, 0.01, 0.2):
        everything = impostor_index.match(texts, top=5)
        kept = impostor_index.match(texts, top=5, min_score=floor)
        assert kept == [[(entry, score) for entry, score in found if score >= floor] for found in everything]
    q_rows, d_rows, matrix = impostor_index.features(texts, None, 20)
    read_all, _ = impostor_index.verification_features(texts, q_rows, d_rows, matrix, 5)
    read_some, _ = impostor_index.verification_features(texts, q_rows, d_rows, matrix, 5, 0.01)
    assert 0 < len(read_some) < len(read_all)  # ... and some are skipped


def test_a_tweets_trailer_links_and_dates_are_not_its_figures() -> None:
    from pipeline.nlp.verification import claim_parts

    parts = claim_parts(
        "Jan 12, 1958: Rainmaker Charles Hatfield died in #EagleRock. In 1904, LA paid him for 18 inches of rain. "
        "https://t.co/DPdQqE8Dhq pic.twitter.com/JmRszVFc4H — LAhistory (@LAhistory) January 12, 2017"
    )
    assert parts.numbers == {18.0} and parts.years == {1904, 1958}
    assert {"hatfield", "eagle", "rock"} <= parts.names and "lahistory" not in parts.names
    assert parts.actor == {"rainmaker", "charle", "hatfield"}


def test_verification_reads_a_title_where_the_claim_is_no_sentence() -> None:
    # 25 Snopes checks of the CheckThat! set carry "The", "false" or "mixture" as their claim.
    from pipeline.nlp.matching import verified_claim

    title = "Sean Combs Arrested for the Murder of Tupac Shakur"
    assert verified_claim("false", title, "Rumor: Sean Combs has been arrested.") == title
    assert verified_claim("The", "", "Rumor: Sean Combs has been arrested.") == "Rumor: Sean Combs has been arrested."
    assert verified_claim("Sean Combs was arrested.", title, "") == "Sean Combs was arrested."
    index = MatchIndex.build([{"id": "puff", "claim": "false", "title": title}, *LIBRARY])
    assert index.counts.claims[0] == title
    [found] = index.match(["Tupac Shakur was shot dead in 1996."], top=1)
    assert not found or found[0][1] < BADGE
    [found] = index.match(["Rapper Sean Combs was arrested for the murder of Tupac Shakur."], top=1)
    assert found[0][0] == "puff" and found[0][1] >= BADGE
