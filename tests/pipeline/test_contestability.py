"""The contestability model's cues, its out-of-genre training data, and the seeds' order in the
queue it gives (the seeds are never trained on: they are the held-out check that the model
reads US news as well as the UK news it was graded on)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from django.db import connection

from pipeline.contestability_training import (
    DEBATES_FILE,
    LIAR_FILE,
    OUT_OF_GENRE_OTHER_WEIGHT,
    OUT_OF_GENRE_TAKE_WEIGHT,
    Example,
    fit,
    out_of_genre_examples,
    sample_weights,
)
from pipeline.local import SourceArticle, extract
from pipeline.nlp.checkworthiness import load_scorer
from pipeline.nlp.contestability import CUES, FEATURE_NAMES, ClaimView, features
from tests.conftest import ROOT


def test_the_genre_free_cues_of_a_speakers_stance() -> None:
    # The cues the model leans on against opinion (docs/model.md: both weigh against a claim).
    opinion = "“It is outrageous to think about ICE officers raiding schools or places of worship,” Kraft said."
    fact = "ICE detained nearly 1,500 people across Massachusetts in May."
    assert CUES["opinion"].search(opinion) and not CUES["opinion"].search(fact)
    assert CUES["first_person"].search("But I think we must act now.") and not CUES["first_person"].search(fact)
    values = dict(zip(FEATURE_NAMES, features(ClaimView(opinion, 0.5, "quote", ("quote",), "direct_quote", {})), strict=True))
    assert (values["cue_opinion"], values["cue_first_person"]) == (1.0, 0.0)


def example(sentence: str, grade: int, group: str, *, out_of_genre: bool = False) -> Example:
    return Example(ClaimView(sentence, 0.5, "other", ("other",), "article", {}), grade, group, out_of_genre=out_of_genre)


def test_out_of_genre_classes_weigh_their_share_of_the_graded_class() -> None:
    graded = [example(f"graded take {i}", 3, f"a{i}") for i in range(2)] + [example(f"graded other {i}", 1, f"b{i}") for i in range(6)]
    liar = [example(f"liar {i}", 3, f"liar:{i}", out_of_genre=True) for i in range(40)]
    debates = [example(f"debate {i}", 0, f"debate:{i}", out_of_genre=True) for i in range(10)]
    weights = sample_weights([*graded, *liar, *debates])
    # Balanced within the graded claims: each class weighs half of their count.
    assert weights[:2].sum() == pytest.approx(4.0) and weights[2:8].sum() == pytest.approx(4.0)
    assert weights[8:48].sum() == pytest.approx(OUT_OF_GENRE_TAKE_WEIGHT * 4.0)
    assert weights[48:].sum() == pytest.approx(OUT_OF_GENRE_OTHER_WEIGHT * 4.0)
    assert np.allclose(weights[8:48], weights[8])


def test_a_fit_needs_graded_claims_of_both_classes_whatever_the_out_of_genre_ones_hold() -> None:
    graded = [example(f"graded other {i}", 1, f"b{i}") for i in range(4)]
    liar = [example(f"liar {i}", 3, f"liar:{i}", out_of_genre=True) for i in range(4)]
    with pytest.raises(ValueError, match="graded claims a desk would take"):
        fit([*graded, *liar])


def test_the_model_counts_only_graded_claims_as_its_examples() -> None:
    graded = [example("Labour claimed taxes rose 66 times", 3, "a"), example("Labour claimed the cuts failed", 3, "b")]
    graded += [example(f"The ONS said GDP rose {i}%", 1, f"c{i}") for i in range(4)]
    liar = [example(f"Says taxes rose {i} times", 3, f"liar:{i}", out_of_genre=True) for i in range(3)]
    model = fit([*graded, *liar])
    assert model.metadata["examples"] == 6 and model.metadata["take"] == 2
    assert model.metadata["out_of_genre"] == {"take": 3, "other": 0}


def test_out_of_genre_examples_read_liar_statements_and_the_debates_not_check_worthy_claims(tmp_path: Path) -> None:
    (tmp_path / LIAR_FILE).parent.mkdir(parents=True)
    (tmp_path / LIAR_FILE).write_text(
        "2635.json\tfalse\tSays the state spent $2 billion on a bridge that was never built.\tbudget\tjane-doe\t\t\t\t0\t0\t0\t0\t0\ta mailer\n"
        "bad row without enough fields\n",
        encoding="utf-8",
    )
    (tmp_path / DEBATES_FILE).parent.mkdir(parents=True)
    (tmp_path / DEBATES_FILE).write_text(
        "Sentence_id\tText\tclass_label\n"
        "1\tI think the unemployment rate went up by 2 percent under this president, and it is a disgrace.\tNo\n"
        "2\tUnemployment rose by 2 percent under this president.\tYes\n",
        encoding="utf-8",
    )
    examples, missing = out_of_genre_examples(tmp_path, load_scorer())
    assert missing == []
    assert {(e.group, e.grade, e.out_of_genre) for e in examples} <= {("liar:2635.json", 3, True), ("debate:1", 0, True)}
    assert ("liar:2635.json", 3, True) in {(e.group, e.grade, e.out_of_genre) for e in examples}
    assert not any(e.group == "debate:2" for e in examples)  # check-worthy: not a claim a desk would leave


def test_absent_out_of_genre_sources_are_named_and_nothing_is_made_up(tmp_path: Path) -> None:
    examples, missing = out_of_genre_examples(tmp_path, load_scorer())
    assert examples == [] and missing == [str(tmp_path / LIAR_FILE), str(tmp_path / DEBATES_FILE)]


# The seeds' order in the queue, as the queue computes it: the database's own priority, one row
# per cluster at its lead appearance's priority.
PRIORITIES = """
SELECT (p.parts ->> 'priority')::float8
FROM unnest(%s::float8[], %s::text[], %s::text[]) WITH ORDINALITY AS c(score, claim_type, signals, n)
CROSS JOIN LATERAL claim_priority_parts(c.score, c.claim_type, c.signals::jsonb, 1) p
ORDER BY c.n
"""


def seed_queue() -> list[set[str]]:
    """The seeds' clusters in queue order, each as its sentences."""
    articles = [SourceArticle(source=path.name, text=path.read_text(encoding="utf-8")) for path in sorted((ROOT / "seeds").glob("*.txt"))]
    _, _, claims = extract(articles, load_scorer())
    with connection.cursor() as cursor:
        cursor.execute(PRIORITIES, [[c.claim.score for c in claims], [c.claim.claim_type for c in claims], [json.dumps(c.claim.signals) for c in claims]])
        priorities = [row[0] for row in cursor.fetchall()]
    clusters: dict[str, tuple[float, set[str]]] = {}
    for item, priority in zip(claims, priorities, strict=True):
        key = item.claim.cluster_key or item.claim.claim_key
        best, sentences = clusters.get(key, (float("-inf"), set()))
        clusters[key] = (max(best, priority), sentences | {item.claim.sentence})
    return [sentences for _, sentences in sorted(clusters.values(), key=lambda value: -value[0])]


def rank_of(queue: list[set[str]], fragment: str) -> int:
    (rank,) = [rank for rank, sentences in enumerate(queue, start=1) if any(fragment in sentence for sentence in sentences)]
    return rank


@pytest.mark.django_db
def test_on_the_seeds_the_opinion_quote_ranks_below_the_factual_assertions() -> None:
    queue = seed_queue()
    opinion = rank_of(queue, "It is outrageous to think about ICE officers")
    assert rank_of(queue, "detained nearly 1,500 people") < opinion
    assert rank_of(queue, "Lyons promised to target similar sanctuary cities") < opinion
    assert opinion > 4  # the issue: it ranked 4th, then 2nd
