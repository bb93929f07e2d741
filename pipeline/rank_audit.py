"""Agreement between the labellers of the graded BBC ranking set (docs/model.md, "Three
labellers"): training/bbc_news_rank_audit.tsv holds 120 claims graded blind by a second
labeller and, after the guideline named a party's costing of its own plans, by a third,
beside the first labeller's grades.

    python -m pipeline.rank_audit

Prints, for each pair of labellers, exact agreement and Cohen's kappa (unweighted and
quadratic-weighted: a 2 against a 3 is a smaller disagreement than a 0 against a 3), the
first two's confusion, and how many of the queue's top 30 each labeller would take (grade 3)
and the three together (the majority's grade; the middle one where all three differ). Plain
Python: no Django, no Spark.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

AUDIT = Path(__file__).resolve().parents[1] / "training" / "bbc_news_rank_audit.tsv"
GRADES = range(4)
TAKE = 3
TOP = 30


def together(*grades: int) -> int:
    """The grade of several labellers together: two of three who agree outvote the third;
    where all three differ, the middle grade (nearest to each). The median, for any number."""
    return sorted(grades)[len(grades) // 2]


@dataclass(frozen=True)
class AuditRow:
    article_id: str
    first: int
    second: int
    third: int
    rank: int | None  # the claim's place in the queue's BBC top 40, None for the random sample
    digest: str = ""  # the sentence's SHA-1 prefix (contestability_training.sentence_digest)

    @property
    def adjudicated(self) -> int:
        """The grade of the three labellers together: two who agree outvote the third; where all
        three differ, the middle grade (nearest to each)."""
        return together(self.first, self.second, self.third)


def read_audit(path: Path = AUDIT) -> list[AuditRow]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    rows = []
    grades = {"0", "1", "2", "3"}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 10 or not {fields[3], fields[4], fields[8]} <= grades:
            raise ValueError(
                f"{path}: row {number} is not article_id, start, end, first 0-3, second 0-3, where, sha1, reason, third 0-3, third_reason"
            )
        rank = int(fields[5][3:]) if fields[5].startswith("top") else None
        rows.append(AuditRow(fields[0], int(fields[3]), int(fields[4]), int(fields[8]), rank, fields[6]))
    return rows


def kappa(pairs: Sequence[tuple[int, int]], *, quadratic: bool = False) -> float:
    """Cohen's kappa of two labellers' grades (0-3); quadratic: disagreements weighted by the
    square of their distance."""
    n = len(pairs)
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)

    def weight(a: int, b: int) -> float:
        return (a - b) ** 2 / (len(GRADES) - 1) ** 2 if quadratic else float(a != b)

    observed = sum(weight(a, b) for a, b in pairs) / n
    expected = sum(first[a] * second[b] * weight(a, b) for a in GRADES for b in GRADES) / (n * n)
    return 1.0 - observed / expected if expected else 1.0


def main(argv: Sequence[str] | None = None) -> int:
    rows = read_audit(Path(argv[0]) if argv else AUDIT)
    labellers = {"first": [row.first for row in rows], "second": [row.second for row in rows], "third": [row.third for row in rows]}
    for a, b in (("first", "second"), ("first", "third"), ("second", "third")):
        pairs = list(zip(labellers[a], labellers[b], strict=True))
        exact = sum(x == y for x, y in pairs) / len(pairs)
        print(
            f"{a} and {b}, {len(pairs)} claims: exact agreement {exact:.3f}, kappa {kappa(pairs):.3f}, "
            f"quadratic-weighted kappa {kappa(pairs, quadratic=True):.3f}"
        )
    confusion = Counter(zip(labellers["first"], labellers["second"], strict=True))
    print("first \\ second  " + "  ".join(str(g) for g in GRADES))
    for row_grade in GRADES:
        print(f"{row_grade:>14}  " + "  ".join(f"{confusion[(row_grade, column)]:>1}" for column in GRADES))
    top = [row for row in rows if row.rank is not None and row.rank <= TOP]
    takes = {
        "the first": sum(row.first == TAKE for row in top),
        "the second": sum(row.second == TAKE for row in top),
        "the third": sum(row.third == TAKE for row in top),
        "the three together": sum(row.adjudicated == TAKE for row in top),
    }
    print(f"the queue's top {TOP} ({len(top)} audited): a desk would take " + ", ".join(f"{n} by {who}" for who, n in takes.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
