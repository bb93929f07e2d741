"""The top 100 BBC claims, read by hand: at least 97% of their quantities and speakers right.

Three sets: the top 100 of 2026-11-26 (bbc_quantities_golden.tsv), the claims of the top 100
of 2026-11-27, ranked with contestability, not already in the first
(bbc_quantities_golden_contested.tsv), and those of the top 100 of 2026-12-02, the ranking model
refit on three labellers' grades, in neither (bbc_quantities_golden_regraded.tsv). Each set
must be at least 97% right on its own.
How they are scored: pipeline/evaluate_extraction.py. The BBC text is read from ../shared/data;
the scored test skips when that is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.evaluate_extraction import (
    GOLDEN,
    GOLDEN_CONTESTED,
    GOLDEN_REGRADED,
    GOLDEN_SETS,
    Expected,
    parse_expected,
    read_golden,
    score,
)
from tests.conftest import SHARED_DATA

BBC = SHARED_DATA / "bbc_news" / "bbc_news.jsonl"
REQUIRED_ACCURACY = 0.97
# The second top 100 shares 17 claims with the first; the third 59 with the first two.
SIZES = {GOLDEN: 100, GOLDEN_CONTESTED: 83, GOLDEN_REGRADED: 41}


@pytest.mark.parametrize("golden", list(SIZES), ids=lambda p: p.stem)
def test_golden_file_is_well_formed(golden: Path) -> None:
    claims = read_golden(golden)
    assert len(claims) == SIZES[golden]
    assert len({(c.article_id, c.start, c.end) for c in claims}) == len(claims)
    assert all(c.speaker for c in claims)


def test_the_sets_share_no_claim() -> None:
    seen: set[tuple[str, int, int]] = set()
    for golden in GOLDEN_SETS:
        claims = {(c.article_id, c.start, c.end) for c in read_golden(golden)}
        assert not seen & claims, golden.name
        seen |= claims


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
