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


def test_the_training_grades_are_three_labellers_together_where_two_more_regraded(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pipeline.contestability_training import read_graded

    labels = tmp_path / "labels.tsv"
    labels.write_text(
        "# a comment\narticle_id\tstart\tend\tgrade\tsha1\n"
        "politics/001\t0\t10\t2\taaaaaaaaaa\npolitics/001\t11\t20\t3\tbbbbbbbbbb\npolitics/002\t0\t9\t1\tcccccccccc\n",
        encoding="utf-8",
    )
    regrades = tmp_path / "regrades.tsv"
    regrades.write_text(
        "article_id\tstart\tend\tsha1\tsecond\tthird\tsecond_reason\tthird_reason\n"
        "politics/001\t0\t10\taaaaaaaaaa\t3\t3\ta costing\ta costing\n"
        "politics/001\t11\t20\tbbbbbbbbbb\t2\t1\tan aside\troutine\n",
        encoding="utf-8",
    )
    rows = {row.digest: row for row in read_graded([labels], regrades)}
    # Two who agree outvote the first; where all three differ, the middle grade; the rest stay.
    assert [(rows[d].grade, rows[d].first) for d in ("aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc")] == [(3, 2), (2, 3), (1, None)]
    # Named files without a regrades file: the first labeller's grades as they are.
    assert [row.grade for row in read_graded([labels])] == [2, 3, 1]
    header = "article_id\tstart\tend\tsha1\tsecond\tthird\tsecond_reason\tthird_reason\n"
    regrades.write_text(header + "politics/001\t0\t10\taaaaaaaaaa\t4\t3\tx\ty\n", encoding="utf-8")
    with pytest.raises(ValueError, match="row 2 is not article_id, start, end, sha1, second 0-3"):
        read_graded([labels], regrades)


def test_the_shipped_regrades_cover_every_claim_graded_2_or_3_and_match_the_labels() -> None:
    from pipeline.contestability_training import GRADED_FILES, REGRADES_FILE, TRAINING_DIR, read_graded, read_regrades

    first = read_graded([TRAINING_DIR / name for name in GRADED_FILES])
    regraded = read_regrades(TRAINING_DIR / REGRADES_FILE)
    keys = {(row.article_id, row.digest) for row in first}
    assert set(regraded) <= keys  # every regrade attaches to a graded claim
    assert all((row.article_id, row.digest) in regraded for row in first if row.grade >= 2)
    shipped = read_graded()
    assert sum(row.first is not None for row in shipped) == len({(r.article_id, r.digest) for r in first if (r.article_id, r.digest) in regraded})
