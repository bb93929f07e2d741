"""The top 100 BBC claims, read by hand: at least 97% of their quantities and speakers right.

The golden file (bbc_quantities_golden.tsv) and how it is scored: pipeline/evaluate_extraction.py.
The BBC text is read from ../shared/data; the scored test skips when that is absent.
"""

from __future__ import annotations

import pytest

from pipeline.evaluate_extraction import Expected, parse_expected, read_golden, score
from tests.conftest import SHARED_DATA

BBC = SHARED_DATA / "bbc_news" / "bbc_news.jsonl"
REQUIRED_ACCURACY = 0.97


def test_golden_file_is_well_formed() -> None:
    claims = read_golden()
    assert len(claims) == 100
    assert len({(c.article_id, c.start, c.end) for c in claims}) == 100
    assert all(c.speaker for c in claims)


def test_expected_quantities_read_every_field() -> None:
    assert parse_expected('20000 people approximately "old people" 20000-100000; 4.3 percent exact; 14 - exact') == (
        Expected(20000.0, "people", "approximately", "old people", 20000.0, 100000.0),
        Expected(4.3, "percent", "exact"),
        Expected(14.0, "", "exact"),
    )
    with pytest.raises(ValueError, match="not a quantity"):
        parse_expected("4.3 percent")


@pytest.mark.skipif(not BBC.is_file(), reason="BBC News corpus not found in ../shared/data")
def test_top_100_bbc_claims_quantities_and_speakers() -> None:
    right, total, wrong = score(read_golden(), BBC)
    accuracy = right / total
    print(f"BBC top-100 golden: {right}/{total} quantities and speakers right ({accuracy:.1%})")
    assert accuracy >= REQUIRED_ACCURACY, f"{right}/{total} right ({accuracy:.1%}); wrong:\n" + "\n".join(wrong)
