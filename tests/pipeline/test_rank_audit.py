"""The three-labeller audit of the ranking set (pipeline.rank_audit)."""

from __future__ import annotations

import pytest

from pipeline.rank_audit import AuditRow, kappa, main, read_audit


def test_kappa_matches_the_textbook_example() -> None:
    # 50 items: both yes 20, first yes second no 5, first no second yes 10, both no 15 -> 0.4.
    pairs = [(3, 3)] * 20 + [(3, 0)] * 5 + [(0, 3)] * 10 + [(0, 0)] * 15
    assert kappa(pairs) == pytest.approx(0.4)
    # Two grades at the ends of the scale: every disagreement weighs 1 either way.
    assert kappa(pairs, quadratic=True) == pytest.approx(0.4)


def test_quadratic_kappa_forgives_a_neighbouring_grade_more_than_a_distant_one() -> None:
    near = [(3, 3), (2, 2), (1, 1), (0, 0)] * 5 + [(3, 2)] * 4
    far = [(3, 3), (2, 2), (1, 1), (0, 0)] * 5 + [(3, 0)] * 4
    assert kappa(near) == pytest.approx(kappa(far), abs=0.05)
    assert kappa(near, quadratic=True) > kappa(far, quadratic=True) + 0.2


def test_three_labellers_together_take_the_majority_or_else_the_middle_grade() -> None:
    def grade(first: int, second: int, third: int) -> int:
        return AuditRow("politics/001", first, second, third, None).adjudicated

    assert (grade(3, 1, 3), grade(1, 3, 3), grade(2, 2, 0), grade(0, 0, 0)) == (3, 3, 2, 0)
    assert (grade(3, 1, 2), grade(0, 3, 1)) == (2, 1)  # all three differ: the middle one


def test_the_audit_file_is_the_top_40_and_a_sample_of_each_grade(capsys: pytest.CaptureFixture[str]) -> None:
    rows = read_audit()
    assert len(rows) == 120
    assert sorted(row.rank for row in rows if row.rank is not None) == list(range(1, 41))
    sample = [row.first for row in rows if row.rank is None]
    assert all(sample.count(grade) == 20 for grade in range(4))
    assert all(row.third in range(4) for row in rows)
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "first and third, 120 claims" in out and "the queue's top 30 (30 audited)" in out and "by the three together" in out
