"""Sentence segmentation: golden sentences from the seed articles, one synthetic case per rule,
and offset invariants over every BBC article (or the seeds where the data is absent)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from pipeline.nlp.segment import Sentence, split_sentences

ROOT = Path(__file__).resolve().parents[2]
BBC_NEWS = ROOT.parent / "shared" / "data" / "bbc_news" / "bbc_news.jsonl"
SEED_DIRS = (ROOT / "seeds", ROOT.parent / "shared" / "seeds")
SEED_NAMES = ("000_89b394fdc0eca745.txt", "001_6224e2dd4404653b.txt", "002_a4664de892463d8e.txt")
# An independent statement of "paragraph break", including a lone \r (old Mac line endings).
PARAGRAPH_BREAK = re.compile(r"(?:\r\n|\n|\r(?!\n))[^\S\r\n]*(?:\r\n|\n|\r(?!\n))|\u2029")


def texts_of(text: str) -> list[str]:
    return [text[s.start : s.end] for s in split_sentences(text)]


def seed_text(name: str) -> str:
    for folder in SEED_DIRS:
        path = folder / name
        if path.exists():
            return path.read_text(encoding="utf-8")
    pytest.fail(f"seed article {name} is in neither {SEED_DIRS[0]} nor {SEED_DIRS[1]}")


def assert_invariants(text: str, sentences: list[Sentence]) -> None:
    """Exact, ordered, stripped, non-overlapping, lossless, and paragraph-consistent."""
    previous_end = 0
    previous_paragraph = 0
    for index, sentence in enumerate(sentences):
        chunk = text[sentence.start : sentence.end]
        assert chunk, f"empty sentence {index}"
        assert chunk == chunk.strip(), f"sentence {index} not stripped: {chunk!r}"
        assert sentence.start >= previous_end, f"sentence {index} overlaps the previous one"
        gap = text[previous_end : sentence.start]
        assert not gap.strip(), f"non-whitespace lost before sentence {index}: {gap!r}"
        if index == 0:
            assert sentence.paragraph == 0
        else:
            assert sentence.paragraph - previous_paragraph in (0, 1), f"paragraph index jumps at {index}"
            if sentence.paragraph != previous_paragraph:
                assert PARAGRAPH_BREAK.search(gap), f"paragraph changes without a break at {index}"
            else:
                assert not PARAGRAPH_BREAK.search(gap), f"paragraph break inside paragraph {sentence.paragraph}"
        assert not PARAGRAPH_BREAK.search(chunk), f"sentence {index} crosses a paragraph break"
        previous_end = sentence.end
        previous_paragraph = sentence.paragraph
    assert not text[previous_end:].strip(), "non-whitespace lost after the last sentence"


# --- Golden sentences from the seed articles ---------------------------------------------------

SEED_000_QUOTE = [
    "Lyons added, “Sanctuary does not mean safer streets.",
    "It means more criminal aliens out and about the neighborhood.",
    "But 100%, you will see a larger ICE presence.”",
]
SEED_001_ELLIPSIS = (
    "“And that’s what I think local leaders don’t understand, is they need to talk to the men and "
    "women on the ground, because… there are so many of these criminal aliens that keep getting "
    "released to go out and commit more crimes that the local law enforcement have to deal with."
)
SEED_002_WASHINGTON = (
    "Carr asked whether the government may “surge” federal agents to Boston, akin to how it has "
    "deployed National Guard troops and federal officers to Washington, D.C., to fight crime, over "
    "the objection of local officials."
)


def test_seed_000_golden_sentences() -> None:
    sentences = texts_of(seed_text(SEED_NAMES[0]))
    assert len(sentences) == 24
    start = sentences.index(SEED_000_QUOTE[0])
    assert sentences[start : start + 3] == SEED_000_QUOTE
    assert sentences[4:6] == [
        "“We’re definitely going to, as you’ve heard the saying, flood the zone, especially in sanctuary "
        "jurisdictions,” he explained.",
        "“Boston and Massachusetts decided to say that they wanted to stay sanctuary.”",
    ]
    oath = next(s for s in sentences if s.startswith("Every officer who serves"))
    assert "duties incumbent on me as… according to the best of my ability" in oath
    assert oath.endswith("the commonwealth and the United States.")
    assert sentences[sentences.index(oath) + 1] == "So help me, God.”"


def test_seed_001_golden_sentences() -> None:
    sentences = texts_of(seed_text(SEED_NAMES[1]))
    assert len(sentences) == 18
    assert SEED_001_ELLIPSIS in sentences
    assert sentences[3:5] == [
        "“They can’t cooperate openly out of fear of getting in trouble or getting fired.",
        "But they’re helping us anyway,” Lyons said on the Howie Carr Show on Wednesday.",
    ]
    assert (
        "Meanwhile, Wu is hyperbolically accusing ICE officers of being something akin to neo-Nazis or "
        "being Trump’s “secret police.”"
    ) in sentences
    assert sentences[-1] == (
        "Follow Warner Todd Huston on Facebook at: facebook.com/Warner.Todd.Huston, X at WTHuston, "
        "or Truth Social at @WarnerToddHuston."
    )


def test_seed_002_golden_sentences() -> None:
    sentences = texts_of(seed_text(SEED_NAMES[2]))
    assert len(sentences) == 35
    assert sentences[1] == (
        "At a rally Tuesday outside City Hall, Boston Mayor Michelle Wu said the city would not help "
        "U.S. Immigration and Customs Enforcement agents locate, detain and deport immigrants."
    )
    assert sentences[2] == (
        "Acting ICE Director Todd Lyons fired back Wednesday, saying Boston “will see a larger ICE presence.”"
    )
    assert sentences[8].startswith("Last week, U.S. Attorney General Pam Bondi gave Boston")
    assert sentences[9:12] == [
        "“Here is our response: Stop attacking our cities to hide your administration’s failures,” "
        "Wu said Tuesday at City Hall.",
        "“Unlike the Trump administration, Boston follows the law.",
        "And Boston will not back down from who we are and what we stand for.”",
    ]
    washington = sentences.index(SEED_002_WASHINGTON)
    assert sentences[washington + 1] == "Boston “100%” will have an increased ICE presence, Lyons said."
    assert "“We’re definitely going to … flood the zone, especially in sanctuary jurisdictions.”" in sentences
    assert any(s.endswith("during which it detained nearly 1,500 people.") for s in sentences)
    assert "Lyons said then: “Make no mistake: ICE is going to keep doing this.”" in sentences
    assert (
        "“We are going to continue to apply for those grant funds, and if they are rejected … we will go "
        "to court again,” she said."
    ) in sentences
    assert sentences[-1] == "Read the original article on MassLive."


def test_seed_paragraph_indices() -> None:
    text = seed_text(SEED_NAMES[2])
    sentences = split_sentences(text)
    paragraphs = [block for block in text.split("\n\n") if block.strip()]
    assert sentences[-1].paragraph == len(paragraphs) - 1 == 22
    by_paragraph = [s for s in sentences if s.paragraph == 8]
    assert [text[s.start : s.end] for s in by_paragraph][1:] == [
        "“Unlike the Trump administration, Boston follows the law.",
        "And Boston will not back down from who we are and what we stand for.”",
    ]


@pytest.mark.parametrize("name", SEED_NAMES)
def test_seed_invariants_and_crlf(name: str) -> None:
    text = seed_text(name)
    assert_invariants(text, split_sentences(text))
    crlf = text.replace("\n", "\r\n")
    assert_invariants(crlf.replace("\r\n", "\n"), split_sentences(crlf.replace("\r\n", "\n")))
    crlf_sentences = split_sentences(crlf)
    assert [crlf[s.start : s.end].replace("\r\n", "\n") for s in crlf_sentences] == texts_of(text)
    assert [s.paragraph for s in crlf_sentences] == [s.paragraph for s in split_sentences(text)]


# --- One synthetic case per rule -----------------------------------------------------------------

CASES: list[tuple[str, list[str]]] = [
    # Abbreviations and titles
    ("Mr. Smith met Mrs. Jones and Dr. Patel. They talked.",
     ["Mr. Smith met Mrs. Jones and Dr. Patel.", "They talked."]),
    ("Gov. Healey, Sen. Warren and Rep. Pressley spoke. Gen. Milley and Lt. Dan did not.",
     ["Gov. Healey, Sen. Warren and Rep. Pressley spoke.", "Gen. Milley and Lt. Dan did not."]),
    ("He lives on St. Botolph Street in the U.S. and visits the U.K. often.",
     ["He lives on St. Botolph Street in the U.S. and visits the U.K. often."]),
    ("She works for U.S. Immigration and Customs Enforcement. He does not.",
     ["She works for U.S. Immigration and Customs Enforcement.", "He does not."]),
    ("Last week, U.S. Attorney General Pam Bondi wrote.", ["Last week, U.S. Attorney General Pam Bondi wrote."]),
    ("The troops went to Washington, D.C., to fight crime.", ["The troops went to Washington, D.C., to fight crime."]),
    ("The troops went to Washington, D.C. The next day they left.",
     ["The troops went to Washington, D.C.", "The next day they left."]),
    ("They arrived in the U.S. But nobody met them.", ["They arrived in the U.S.", "But nobody met them."]),
    ("It was signed on Jan. 5 and again on Dec. 12, 2024.", ["It was signed on Jan. 5 and again on Dec. 12, 2024."]),
    ("Arsenal vs. Chelsea ended level. Fans left.", ["Arsenal vs. Chelsea ended level.", "Fans left."]),
    ("Some cities, e.g. Boston, refused, i.e. They said no.",
     ["Some cities, e.g. Boston, refused, i.e. They said no."]),
    ("The deal involves Acme Inc. and Widget Corp. but not Foo Ltd. It closes soon.",
     ["The deal involves Acme Inc. and Widget Corp. but not Foo Ltd.", "It closes soon."]),
    ("Shares in Apple Inc. Rose 5%. Traders cheered.", ["Shares in Apple Inc. Rose 5%.", "Traders cheered."]),
    ("Martin Luther King Jr. He was a preacher.", ["Martin Luther King Jr.", "He was a preacher."]),
    ("He lives at No. 10 Downing St. He rarely leaves.", ["He lives at No. 10 Downing St.", "He rarely leaves."]),
    ("“No. I won’t,” she said.", ["“No.", "I won’t,” she said."]),
    ("We bought apples, pears, etc. The total was high.", ["We bought apples, pears, etc.", "The total was high."]),
    ("J. K. Rowling and George W. Bush met. J. A. Smith did not.",
     ["J. K. Rowling and George W. Bush met.", "J. A. Smith did not."]),
    ("The meeting ends at 5 p.m. Friday. It will be late.", ["The meeting ends at 5 p.m. Friday.", "It will be late."]),
    ("The meeting ends at 5 p.m. The staff go home.", ["The meeting ends at 5 p.m.", "The staff go home."]),
    ("The former Gov. Baker and ex-Sen. Brown attended.", ["The former Gov. Baker and ex-Sen. Brown attended."]),
    ("Patients with MS. Final approval is near.", ["Patients with MS.", "Final approval is near."]),
    # Numbers
    ("Nearly 1,500 people were held. Costs rose 3.5% to $2.4bn at 10.30am. 100% sure.",
     ["Nearly 1,500 people were held.", "Costs rose 3.5% to $2.4bn at 10.30am.", "100% sure."]),
    ("Sales fell in 2004. 2005 was better.", ["Sales fell in 2004.", "2005 was better."]),
    ("See bbc.co.uk for more. Or don't.", ["See bbc.co.uk for more.", "Or don't."]),
    # Quotes
    ("He said, “Stop.” Then he left.", ["He said, “Stop.”", "Then he left."]),
    ("He said, 'Stop.' Then he left.", ["He said, 'Stop.'", "Then he left."]),
    ('He said, "Stop." Then he left.', ['He said, "Stop."', "Then he left."]),
    ("She said, ‘Go now!’ They went.", ["She said, ‘Go now!’", "They went."]),
    ("He said, “We won. They lost. It is over.”", ["He said, “We won.", "They lost.", "It is over.”"]),
    ("He left. “Stop,” she said.", ["He left.", "“Stop,” she said."]),
    ('He left. "Stop," she said.', ["He left.", '"Stop," she said.']),
    ("“Why?” he asked. “Because!” she said.", ["“Why?” he asked.", "“Because!” she said."]),
    ('"I was tired... " Hailey later recalled. It showed.', ['"I was tired... " Hailey later recalled.', "It showed."]),
    # BBC copy runs quotations on without closing marks, so quote parity cannot be trusted.
    ('"We showed guts. "I look at that fixture and think we won," he said.',
     ['"We showed guts.', '"I look at that fixture and think we won," he said.']),
    # Ellipses
    ("We must act because… there are so many of them.", ["We must act because… there are so many of them."]),
    ("We are going to … flood the zone.", ["We are going to … flood the zone."]),
    ("He waited... and waited. Nobody came.", ["He waited... and waited.", "Nobody came."]),
    ("He waited... Nobody came.", ["He waited...", "Nobody came."]),
    ("He waited… Nobody came.", ["He waited…", "Nobody came."]),
    ("It was a strange match . . . momentum swings. Then it ended.",
     ["It was a strange match . . . momentum swings.", "Then it ended."]),
    # Other terminators and brackets
    ("Really?! Yes. Wow! Are you sure? Yes.", ["Really?!", "Yes.", "Wow!", "Are you sure?", "Yes."]),
    ("He agreed (reluctantly.) Then he signed. (It was late.) Everyone left.",
     ["He agreed (reluctantly.)", "Then he signed.", "(It was late.)", "Everyone left."]),
    ("The nominees include Ae Fond Kiss (Ae Fond Kiss... ). Shane won.",
     ["The nominees include Ae Fond Kiss (Ae Fond Kiss... ).", "Shane won."]),
    ("Apple sold the iPod. iTunes grew too. eBay did well.",
     ["Apple sold the iPod.", "iTunes grew too.", "eBay did well."]),
    # Whitespace, paragraphs, trailing text
    ("A sentence without a terminator", ["A sentence without a terminator"]),
    ("First one. And a trailing fragment", ["First one.", "And a trailing fragment"]),
    ("Boston Defies ICE\n\nThe mayor spoke. Crowds cheered",
     ["Boston Defies ICE", "The mayor spoke.", "Crowds cheered"]),
    ("A line\nthat wraps. Another\nline.", ["A line\nthat wraps.", "Another\nline."]),
    ("  Leading and trailing space.  \n\n\n\n  Second paragraph.\n  ",
     ["Leading and trailing space.", "Second paragraph."]),
    ("Windows\r\n\r\nline endings. Work.\r\n", ["Windows", "line endings.", "Work."]),
    ("Winners:\n - Best actor - Ann Lee\r\n - Best film - Up\n• Best song. Done",
     ["Winners:", "- Best actor - Ann Lee", "- Best film - Up", "• Best song.", "Done"]),
    ("Temperatures of 5\n-10 degrees. Cold.", ["Temperatures of 5\n-10 degrees.", "Cold."]),
    ("Tab\tseparated. Non-breaking\u00a0space. Done.", ["Tab\tseparated.", "Non-breaking\u00a0space.", "Done."]),
    ("", []),
    (" \n\n \t ", []),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[text[:40] for text, _ in CASES])
def test_synthetic_cases(text: str, expected: list[str]) -> None:
    sentences = split_sentences(text)
    assert [text[s.start : s.end] for s in sentences] == expected
    assert_invariants(text, sentences)


def test_paragraph_numbering_counts_only_paragraphs_with_text() -> None:
    text = "\n\nHeadline\n\n\n\nOne. Two.\n \nThree\r\n\r\nFour.\u2029Five."
    sentences = split_sentences(text)
    assert [(text[s.start : s.end], s.paragraph) for s in sentences] == [
        ("Headline", 0),
        ("One.", 1),
        ("Two.", 1),
        ("Three", 2),
        ("Four.", 3),
        ("Five.", 4),
    ]


def test_list_items_end_sentences_within_one_paragraph() -> None:
    text = "The awards:\n - Best play\n - Best opera\n\nThe ceremony ends."
    assert [(text[s.start : s.end], s.paragraph) for s in split_sentences(text)] == [
        ("The awards:", 0),
        ("- Best play", 0),
        ("- Best opera", 0),
        ("The ceremony ends.", 1),
    ]


def test_offsets_index_the_original_string() -> None:
    text = "Café owners 😀 said: “Prices rose.” Then they fell.\n\nNext."
    sentences = split_sentences(text)
    assert [(s.start, s.end, s.paragraph) for s in sentences] == [(0, 34, 0), (35, 50, 0), (52, 57, 1)]
    assert text[35:50] == "Then they fell."


def test_long_runs_of_terminators_and_line_breaks() -> None:
    # Hostile input: these once took quadratic time in the candidate regex.
    dots = "." * 50_000
    text = f"Wait{dots}x. Then {'!' * 50_000} Done.\n\n{' ' * 10_000}\n\nEnd"
    sentences = split_sentences(text)
    assert [text[s.start : s.end] for s in sentences] == [f"Wait{dots}x.", f"Then {'!' * 50_000}", "Done.", "End"]
    assert [s.paragraph for s in sentences] == [0, 0, 0, 1]


def test_lone_carriage_returns_and_crlf_line_wraps() -> None:
    text = "Old Mac.\r\rNew paragraph\r\nwraps here. Still one.\r\n\r\nLast."
    assert [(text[s.start : s.end], s.paragraph) for s in split_sentences(text)] == [
        ("Old Mac.", 0),
        ("New paragraph\r\nwraps here.", 1),
        ("Still one.", 1),
        ("Last.", 2),
    ]


def test_sentence_is_a_frozen_value() -> None:
    sentence = split_sentences("One.")[0]
    assert sentence == Sentence(start=0, end=4, paragraph=0)
    with pytest.raises(AttributeError):
        sentence.start = 1  # type: ignore[misc]


# --- Properties over real and random text -------------------------------------------------------


def test_invariants_on_every_bbc_article() -> None:
    if not BBC_NEWS.exists():
        pytest.skip(f"BBC News data not found at {BBC_NEWS} (../shared/data is not part of a fresh clone)")
    articles = [json.loads(line) for line in BBC_NEWS.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(articles) > 2000
    total = 0
    for article in articles:
        text = f"{article['title']}\n\n{article['text']}"
        sentences = split_sentences(text)
        assert_invariants(text, sentences)
        assert text[sentences[0].start : sentences[0].end] == article["title"].strip()
        total += len(sentences)
    # About 19 sentences an article; far fewer means boundaries are being missed.
    assert 35_000 < total < 50_000


FRAGMENTS = [
    "Mr.", "U.S.", "D.C.,", "e.g.", "J.", "K.", "No.", "10", "1,500", "3.5%", "$2.4bn", "The", "he",
    "said", "“Stop.”", "‘Go!’", '"Yes."', "'No?'", "(aside.)", "…", "...", ". . .", "?!", "because…",
    "end.", "Why?", "iPod.", "”", "“", ")", "etc.", "Inc.", "the", "It", "\n", "\n\n", "\r\n\r\n",
    "\u2029", "\r", "\t", "\u00a0", "  ", "—", "-", "•", "…”", ".”", "St.",
]


def test_invariants_on_random_token_soup() -> None:
    rng = random.Random(20240901)
    for _ in range(3000):
        pieces = rng.choices(FRAGMENTS, k=rng.randint(0, 30))
        text = "".join(piece + rng.choice(("", " ", " ", "\n")) for piece in pieces)
        assert_invariants(text, split_sentences(text))
