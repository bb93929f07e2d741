"""The queue's order on the whole BBC corpus, out of fold, as docs/model.md reports it.

Every BBC article (and the three seed stories) goes through the extraction the pipeline runs
(pipeline.local.extract: the same code as the Spark job); each claim's contestability comes
from the model fitted without its article's fold when its article is in the graded set, from
the model fitted on every graded article outside the held-out fifth otherwise. The priority is
the queue's own: the database's claim_priority_parts with the stored (or default) weights,
each cluster ranked once by its lead appearance (the highest priority of its own), the BBC
counted as one outlet; recency is left out (the corpus has no dates). Nothing is written.

Figures: how many of the top 30 a desk would take (grade 3 of docs/ranking_guidelines.md),
their grades ("?" for a claim nobody graded: judge it by the guideline), and NDCG@30 over the
graded claims in queue order (ungraded claims left out, a condensed list); "before" is the
same with no contestability (the formula before issue 29). The held-out fifth of the graded
articles counts only with --held-out: read it once. --dump FILE writes the whole BBC order as
TSV (offsets into the text as the pipeline normalises it, which can sit a few characters off
the corpus's): the pool a grading round reads next.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from pipeline.contestability_training import (
    TAKE,
    TOP,
    corpus_examples,
    default_bbc_path,
    is_held_out,
    ndcg_at,
    out_of_fold_by_article,
    out_of_genre_or_none,
    read_corpus,
    read_graded,
    sentence_digest,
    shared_data_root,
)
from pipeline.nlp.contestability import ClaimView
from pipeline.nlp.stories import StoryMember, content_words, repeats
from pipeline.rank_audit import read_audit

SEEDS_DIR = Path(settings.BASE_DIR) / "seeds"
# The seed story's claims the issue follows, by a phrase of each.
SEED_PHRASES = ("nearly 1,500", "Sanctuary does not mean safer streets", "higher crime rates", "It is outrageous to think")
PRIORITIES = """
SELECT (p.parts ->> 'priority')::float8
FROM unnest(%s::float8[], %s::text[], %s::text[]) WITH ORDINALITY AS c(score, claim_type, signals, n)
CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.signals::jsonb, 1) p
ORDER BY c.n
"""


class Command(BaseCommand):
    help = "Print the queue's top 30 on the whole BBC corpus out of fold, NDCG@30, and where the seed story's claims rank."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bbc", type=Path, default=default_bbc_path(Path(settings.CHECKWORTHINESS_DATA_DIR)))
        parser.add_argument("--held-out", action="store_true", help="count the held-out fifth of the graded articles (read it once)")
        parser.add_argument("--top", type=int, default=TOP, help="how many of the queue's top to print (default 30)")
        parser.add_argument(
            "--dump", type=Path, help="write the BBC order (rank, article, offsets, grades, sentence) as TSV here: the pool to grade next"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from pipeline.local import SourceArticle, extract
        from pipeline.nlp.checkworthiness import load_scorer

        bbc: Path = options["bbc"]
        if not bbc.exists():
            raise CommandError(f"BBC News not found at {bbc} (../shared/data/bbc_news/, see its README)")
        scorer = load_scorer()
        graded = read_graded()
        examples, _ = corpus_examples(bbc, scorer, graded)
        development = [example for example in examples if not is_held_out(example.group)]
        grades = {(row.article_id, row.digest): row.grade for row in graded if options["held_out"] or not is_held_out(row.article_id)}

        corpus = read_corpus(bbc)
        articles = [SourceArticle(source=f"bbc:{article_id}", text=text) for article_id, text in corpus.items()]
        articles += [SourceArticle(source=f"seed:{path.name}", text=path.read_text(encoding="utf-8")) for path in sorted(SEEDS_DIR.glob("*.txt"))]
        _, _, extracted = extract(articles, scorer)
        claims = [(item.article.source.split(":", 1)[1], item) for item in extracted]
        views = [
            ClaimView(c.sentence, c.score, c.claim_type, tuple(c.claim_types), c.attribution, c.signals)
            for c in (item.claim for _, item in claims)
        ]
        extra = out_of_genre_or_none(shared_data_root(bbc), scorer, self.stdout.write)
        pairs = [(article_id, view) for (article_id, _), view in zip(claims, views, strict=True)]
        contestability = out_of_fold_by_article(development, pairs, extra)

        for label, with_contestability in (("before (no contestability)", False), ("after", True)):
            signals = [
                {**view.signals, "contestability": round(p, 4)} if with_contestability else {k: v for k, v in view.signals.items() if k != "contestability"}
                for view, p in zip(views, contestability, strict=True)
            ]
            priorities = self.priorities(views, signals)
            self.report(label, claims, priorities, grades, options["top"], options["dump"] if with_contestability else None)

    def priorities(self, views: list[ClaimView], signals: list[dict[str, Any]]) -> list[float]:
        with connection.cursor() as cursor:
            cursor.execute(PRIORITIES, [[v.score for v in views], [v.claim_type for v in views], [json.dumps(s) for s in signals]])
            return [row[0] for row in cursor.fetchall()]

    def report(
        self,
        label: str,
        claims: list[tuple[str, Any]],
        priorities: list[float],
        grades: dict[tuple[str, str], int],
        top: int,
        dump: Path | None = None,
    ) -> None:
        # One row per cluster, at its lead's priority (the queue's rule).
        lead: dict[str, int] = {}
        for index, (_, item) in enumerate(claims):
            key = item.claim.cluster_key
            if key not in lead or priorities[index] > priorities[lead[key]]:
                lead[key] = index
        members: dict[str, list[int]] = {}
        for index, (_, item) in enumerate(claims):
            members.setdefault(item.claim.cluster_key, []).append(index)

        def grade_of(key: str) -> int | None:
            found = [grades.get((claims[i][0], sentence_digest(claims[i][1].claim.sentence))) for i in members[key]]
            known = [g for g in found if g is not None]
            return max(known) if known else None

        # One figure, one place (pipeline.nlp.stories): the queue's own rule, on the leads.
        with connection.cursor() as cursor:
            cursor.execute("SELECT claim_repeat_weight()")
            (repeat_weight,) = cursor.fetchone()
        held_back = repeats(
            StoryMember(key, tuple(claims[index][1].claim.signals.get("story") or ()), content_words(claims[index][1].claim.sentence), priorities[index], None)
            for key, index in lead.items()
        )
        ranked = {key: priorities[index] + (repeat_weight if key in held_back else 0.0) for key, index in lead.items()}
        order = sorted(lead, key=lambda key: (-ranked[key], lead[key]))
        bbc_order = [key for key in order if not claims[lead[key]][1].article.source.startswith("seed:")]
        self.stdout.write(f"\n== {label}: {len(order)} claims (clusters), {len(bbc_order)} from the BBC")
        taken = 0
        for rank, key in enumerate(bbc_order[:top], start=1):
            article_id, item = claims[lead[key]]
            grade = grade_of(key)
            taken += rank <= TOP and grade == TAKE
            shown = "?" if grade is None else str(grade)
            self.stdout.write(f"{rank:3} {shown} {ranked[key]:7.2f} {article_id:16} {item.claim.sentence[:150]}")
        # Three labellers' grade together (the audit, pipeline.rank_audit, else the regrades),
        # where they graded the claim, and how many distinct stories the claims they would take are.
        audit = {(row.article_id, row.digest): row.adjudicated for row in read_audit()}
        # A claim the audit did not see but two other labellers regraded blind
        # (REGRADES_FILE): the three labellers' grade together is its graded grade.
        for row in read_graded():
            if row.first is not None:
                audit.setdefault((row.article_id, row.digest), row.grade)
        together = [
            max((g for i in members[key] if (g := audit.get((claims[i][0], sentence_digest(claims[i][1].claim.sentence)))) is not None), default=None)
            for key in bbc_order[:TOP]
        ]
        taken_together = [key for key, grade in zip(bbc_order[:TOP], together, strict=False) if grade == TAKE]
        self.stdout.write(
            f"top {TOP} by the three labellers together: {len(taken_together)} a desk would take, "
            f"{len({held_back.get(key, key) for key in taken_together})} distinct stories among them, "
            f"{sum(grade is None for grade in together)} not in their audit"
        )
        if dump:
            self.dump(dump, bbc_order, lead, claims, ranked, grade_of, held_back, audit)
        graded = [g for g in (grade_of(key) for key in bbc_order) if g is not None]
        unknown = sum(grade_of(key) is None for key in bbc_order[:TOP])
        self.stdout.write(
            f"top {TOP}: {taken} a desk would take (grade 3), {unknown} ungraded; "
            f"NDCG@{TOP} over the {len(graded)} graded claims in queue order: {ndcg_at(graded, graded):.3f}; "
            f"{len(held_back)} clusters held back as another wording of a figure ranked above"
        )
        for phrase in SEED_PHRASES:
            for rank, key in enumerate(order, start=1):
                if any(phrase in claims[i][1].claim.sentence and claims[i][1].article.source.startswith("seed:") for i in members[key]):
                    seeds_only = [k for k in order if claims[lead[k]][1].article.source.startswith("seed:")]
                    self.stdout.write(f"seed claim {phrase!r}: rank {rank} with the BBC corpus, {seeds_only.index(key) + 1} among the seeds")
                    break
            else:
                self.stdout.write(f"seed claim {phrase!r}: not a claim")

    def dump(
        self,
        path: Path,
        order: list[str],
        lead: dict[str, int],
        claims: list[tuple[str, Any]],
        ranked: dict[str, float],
        grade_of: Any,
        held_back: dict[str, str],
        audit: dict[tuple[str, str], int],
    ) -> None:
        """The BBC order as TSV: what a pooled grading round reads (which claims compete for
        the top and are not graded yet). Grades are empty where nobody graded the claim."""
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("rank\tarticle_id\tstart\tend\tsha1\tgrade\taudit\tpriority\trepeat_of\tsentence\n")
            for rank, key in enumerate(order, start=1):
                article_id, item = claims[lead[key]]
                claim = item.claim
                digest = sentence_digest(claim.sentence)
                grade, together = grade_of(key), audit.get((article_id, digest))
                fields = [
                    rank, article_id, claim.start, claim.end, digest, "" if grade is None else grade,
                    "" if together is None else together, f"{ranked[key]:.2f}", held_back.get(key, ""),
                    " ".join(claim.sentence.split()),
                ]
                handle.write("\t".join(str(field) for field in fields) + "\n")
        self.stdout.write(f"wrote the order of {len(order)} BBC clusters to {path}")
