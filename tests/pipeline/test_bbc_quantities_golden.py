"""The top 100 BBC claims, read by hand: at least 97% of their quantities and speakers right.

Two sets: the top 100 of 2026-11-26 (bbc_quantities_golden.tsv) and the claims of the top 100
of 2026-11-27, ranked with contestability, not already in the first
(bbc_quantities_golden_contested.tsv). Each set must be at least 97% right on its own.
How they are scored: pipeline/evaluate_extraction.py. The BBC text is read from ../shared/data;
the scored test skips when that is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.evaluate_extraction import GOLDEN, GOLDEN_CONTESTED, Expected, parse_expected, read_golden, score
from tests.conftest import SHARED_DATA

BBC = SHARED_DATA / "bbc_news" / "bbc_news.jsonl"
REQUIRED_ACCURACY = 0.97
SIZES = {GOLDEN: 100, GOLDEN_CONTESTED: 83}  # the second top 100 shares 17 claims with the first


@pytest.mark.parametrize("golden", list(SIZES), ids=lambda p: p.stem)
def test_golden_file_is_well_formed(golden: Path) -> None:
    claims = read_golden(golden)
    assert len(claims) == SIZES[golden]
    assert len({(c.article_id, c.start, c.end) for c in claims}) == len(claims)
    assert all(c.speaker for c in claims)


def test_the_two_sets_share_no_claim() -> None:
    first = {(c.article_id, c.start, c.end) for c in read_golden(GOLDEN)}
    assert not first & {(c.article_id, c.start, c.end) for c in read_golden(GOLDEN_CONTESTED)}


def test_expected_quantities_read_every_field() -> None:
    assert parse_expected('20000 people approximately "old people" 20000-100000; 4.3 percent exact; 14 - exact') == (
        Expected(20000.0, "people", "approximately", "old people", 20000.0, 100000.0),
        Expected(4.3, "percent", "exact"),
        Expected(14.0, "", "exact"),
    )
    with pytest.raises(ValueError, match="not a quantity"):
        parse_expected("4.3 percent")


@pytest.mark.skipif(not BBC.is_file(), reason="BBC News corpus not found in ../shared/data")
@pytest.mark.parametrize("golden", list(SIZES), ids=lambda p: p.stem)
def test_top_100_bbc_claims_quantities_and_speakers(golden: Path) -> None:
    right, total, wrong = score(read_golden(golden), BBC)
    accuracy = right / total
    print(f"BBC golden {golden.name}: {right}/{total} quantities and speakers right ({accuracy:.1%})")
    assert accuracy >= REQUIRED_ACCURACY, f"{right}/{total} right ({accuracy:.1%}); wrong:\n" + "\n".join(wrong)
