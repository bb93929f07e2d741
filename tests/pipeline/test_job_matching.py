"""Matching inside the claim job (issue 16): the transforms on small inline data, the job's
step on an InMemoryRun, the same matches as `python -m pipeline match`, and the PostgreSQL
store's reads and sink."""

from __future__ import annotations

import io
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from pyspark.sql import SparkSession
from pyspark.testing import assertDataFrameEqual

from factcheck.articles.seeds import seed_articles
from factcheck.factchecks.models import ClaimMatch, FactCheck
from factcheck.runs.spark import database_url_for_job
from pipeline import db
from pipeline.__main__ import main
from pipeline.jobs.extract_claims import MatchParams, parse_args, process_run
from pipeline.match_library import prepared_from_rows
from pipeline.nlp.checkworthiness import read_artifact
from pipeline.run_store import InMemoryRun
from pipeline.schemas import ARTICLE_DATE_SCHEMA, CLAIM_SCHEMA, CLAIM_TEXT_SCHEMA
from pipeline.staging import CLAIM_COLUMN_NAMES
from pipeline.text import content_hash
from pipeline.transforms import claim_texts, match_claims
from tests.pipeline.test_matching import LIBRARY, seed_sentences
from tests.reports.helpers import claim_in_article

# The web app's settings, which factcheck.runs.spark passes to the job.
MATCH_TOP, MATCH_CANDIDATES, MATCH_MIN_SCORE = settings.FACTCHECK_MATCH_TOP, settings.FACTCHECK_MATCH_CANDIDATES, settings.FACTCHECK_MATCH_MIN_SCORE
MATCHING = MatchParams(top=MATCH_TOP, candidates=MATCH_CANDIDATES, min_score=MATCH_MIN_SCORE)
ICE = "ICE arrested nearly 1,500 people in Massachusetts in May, officials said."
WIND = "  Wind turbines kill more birds than cats,\tcampaigners claim.  "


def claim_row(key: str, sentence: str | None, article_id: int) -> dict[str, Any]:
    return {**{name: None for name in CLAIM_COLUMN_NAMES}, "claim_key": key, "sentence": sentence, "article_id": article_id}


def test_claim_texts_are_one_row_per_key_with_the_earliest_article_date(spark: SparkSession) -> None:
    claims_df = spark.createDataFrame(
        [claim_row("a" * 40, ICE, 1), claim_row("a" * 40, ICE, 2), claim_row("a" * 40, ICE, 3), claim_row("b" * 40, WIND, 4), claim_row("c" * 40, None, 5)],
        CLAIM_SCHEMA,
    )
    dates_df = spark.createDataFrame([(1, "2025-06-09"), (2, "2025-06-02"), (5, "2024-01-01")], ARTICLE_DATE_SCHEMA)
    expected = spark.createDataFrame(
        [("a" * 40, ICE, "2025-06-02"), ("b" * 40, WIND, None), ("c" * 40, None, "2024-01-01")], CLAIM_TEXT_SCHEMA
    )
    assertDataFrameEqual(claim_texts(claims_df, dates_df), expected)


def numbered_library() -> tuple[list[dict[str, str]], dict[int, str]]:
    """LIBRARY with the numeric ids the job's entries have (factchecks.id), and id -> name."""
    entries = [{**entry, "id": str(number)} for number, entry in enumerate(LIBRARY, start=1)]
    return entries, {number: str(entry["id"]) for number, entry in enumerate(LIBRARY, start=1)}


def test_match_claims_ranks_each_claims_best_and_never_its_own_verdict(spark: SparkSession) -> None:
    library, names = numbered_library()
    own_key = "d" * 40
    # The desk's own verdict on claim own_key, which repeats the wind claim word for word.
    library.append({"id": "99", "claim": "Wind turbines kill more birds than cats, campaigners claim.", "own_claim_key": own_key})
    names[99] = "own-verdict"
    texts_df = spark.createDataFrame(
        [("a" * 40, ICE, "2025-06-02"), ("b" * 40, WIND, None), ("c" * 40, "", None), ("e" * 40, None, None), (own_key, WIND, None)],
        CLAIM_TEXT_SCHEMA,
    ).repartition(2)
    matched = match_claims(texts_df, prepared_from_rows(library, MATCH_CANDIDATES), top=2, min_score=0.0)
    rows = sorted(matched.collect(), key=lambda row: (row.claim_key, row.rank))
    ranked: dict[str, list[str]] = {}
    for row in rows:
        assert 0 <= row.score <= 1
        ranked.setdefault(row.claim_key, []).append(names[row.factcheck_id])
    assert ranked["a" * 40][0] == "ice-1500"
    assert ranked["b" * 40][0] == "own-verdict" and ranked[own_key][0] == "wind"
    assert "own-verdict" not in ranked[own_key] and len(ranked[own_key]) == 2
    assert "c" * 40 not in ranked and "e" * 40 not in ranked
    assert [row.rank for row in rows if row.claim_key == "a" * 40] == [1, 2]


@pytest.mark.parametrize("claim_date", [None, "2025-06-02"])
def test_the_job_and_the_command_line_give_the_same_matches(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, claim_date: str | None
) -> None:
    library, _ = numbered_library()
    path = tmp_path / "library.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in library), encoding="utf-8")
    sentences = [sentence.replace("\n", " ") for sentence in seed_sentences()]
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(sentence + "\n" for sentence in sentences)))
    dated = ["--date", claim_date] if claim_date else []
    floor = ["--min-score", str(MATCH_MIN_SCORE)]
    assert main(["match", str(path), "--top", str(MATCH_TOP), "--candidates", str(MATCH_CANDIDATES), *floor, *dated]) == 0
    lines = capsys.readouterr().out.split("\n")[:-1]
    from_cli = [
        (f"{number:040x}", int(fields[i]), f"{float(fields[i + 1]):.6f}", i // 2 + 1)
        for number, line in enumerate(lines)
        if line
        for fields in [line.split("\t")]
        for i in range(0, len(fields), 2)
    ]

    texts_df = spark.createDataFrame([(f"{n:040x}", s, claim_date) for n, s in enumerate(sentences)], CLAIM_TEXT_SCHEMA).repartition(3)
    from_job = [
        (row.claim_key, row.factcheck_id, f"{row.score:.6f}", row.rank)
        for row in match_claims(texts_df, prepared_from_rows(library, MATCH_CANDIDATES), top=MATCH_TOP, min_score=MATCH_MIN_SCORE).collect()
    ]
    assert len(lines) == len(sentences) and from_cli
    assert sorted(from_job) == sorted(from_cli)
    assert all(float(score) >= MATCH_MIN_SCORE for _, _, score, _ in from_job)


def seed_run(library: list[dict[str, str]]) -> InMemoryRun:
    articles = [
        (number, content_hash(article.text), article.text, article.outlet, article.author) for number, article in enumerate(seed_articles())
    ]
    return InMemoryRun(articles=articles, library=library, article_dates={number: "2025-06-04" for number in range(len(articles))})


def test_the_job_matches_the_seeds_against_the_library_after_the_merge(spark: SparkSession) -> None:
    library, names = numbered_library()
    store = seed_run(library)
    run = process_run(spark, store, model=read_artifact(), partitions=2, matching=MATCHING)

    assert run.matches == len(store.matches) > 0 and "match" in run.timings
    ranks: dict[str, list[int]] = {}
    for key, _, _, rank in store.matches:
        ranks.setdefault(key, []).append(rank)
    assert all(sorted(kept) == list(range(1, len(kept) + 1)) for kept in ranks.values())
    best = {key: names[factcheck] for key, factcheck, _, rank in store.matches if rank == 1}
    # The seeds' "nearly 1,500" arrests claim finds its paraphrase in the library first.
    assert "ice-1500" in best.values()
    assert all(rank <= MATCH_TOP for *_, rank in store.matches)


def test_a_failure_while_matching_beside_the_merge_fails_the_run(spark: SparkSession) -> None:
    """Matching runs in a thread beside the clustering and the merge: its failure is the run's
    (the task retries it; the merge is idempotent), never a run that ends without its matches."""

    class LibraryUnreadable(InMemoryRun):
        def read_library(self) -> list[dict[str, str]]:
            raise ConnectionError("the library could not be read")

    library, _ = numbered_library()
    store = LibraryUnreadable(**vars(seed_run(library)))
    with pytest.raises(ConnectionError, match="library could not be read"):
        process_run(spark, store, model=read_artifact(), partitions=2, matching=MATCHING)
    assert store.matches == []


def test_an_empty_library_skips_matching(spark: SparkSession) -> None:
    store = seed_run([])
    run = process_run(spark, store, model=read_artifact(), partitions=2, matching=MATCHING)
    assert run.matches == 0 and store.matches == [] and "match" not in run.timings and run.claims > 0


# --- The PostgreSQL store --------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_postgres_store_reads_the_library_and_dates_and_writes_matches_idempotently(reviewer) -> None:  # type: ignore[no-untyped-def]
    from factcheck.runs.services import run_create

    claim = claim_in_article(sentence=ICE, published_at=datetime(2025, 6, 2, 23, 30, tzinfo=UTC))
    other = claim_in_article(sentence=WIND.strip())
    first = FactCheck.objects.create(claim="ICE arrested about 1,500 in Massachusetts.", publisher="Snopes", external_id="a", rating_text="True")
    second = FactCheck.objects.create(claim="Wind turbines and birds.", publisher="PolitiFact", external_id="b")
    run = run_create(article_ids=[claim.article_id, other.article_id], created_by=reviewer)
    store = db.PostgresRun(database_url_for_job(), run.pk)

    assert store.read_library() == [
        {"id": str(first.pk), "claim": first.claim, "rating": "True", "publisher": "Snopes"},
        {"id": str(second.pk), "claim": second.claim, "publisher": "PolitiFact"},
    ]
    assert store.read_article_dates() == [(claim.article_id, "2025-06-02")]

    rows = [(claim.claim_key, first.pk, 0.9, 1), (claim.claim_key, second.pk, 0.2, 2), (other.claim_key, second.pk, 0.7, 1), ("f" * 40, first.pk, 0.5, 1)]
    assert store.write_matches(rows) == 3
    assert store.write_matches(rows) == 0
    ClaimMatch.objects.filter(claim=claim, factcheck=second).update(status=ClaimMatch.Status.REJECTED)
    assert store.write_matches([(claim.claim_key, second.pk, 0.6, 1), (claim.claim_key, first.pk, 0.8, 2)]) == 1
    stored = {(m.claim_id, m.factcheck_id): (m.score, m.rank, m.status) for m in ClaimMatch.objects.all()}
    assert stored == {
        (claim.pk, first.pk): (0.8, 2, ClaimMatch.Status.SUGGESTED),
        (claim.pk, second.pk): (0.2, 2, ClaimMatch.Status.REJECTED),
        (other.pk, second.pk): (0.7, 1, ClaimMatch.Status.SUGGESTED),
    }


def test_the_job_takes_its_matching_settings_from_the_web_app(settings) -> None:  # type: ignore[no-untyped-def]
    from factcheck.runs import spark as launcher

    settings.FACTCHECK_MATCH_TOP, settings.FACTCHECK_MATCH_CANDIDATES, settings.FACTCHECK_MATCH_MIN_SCORE = 4, 9, 0.125
    job_args = launcher.build_command(run_id=7, master="local[*]")[-8:]
    assert job_args == ["--run-id", "7", "--match-top", "4", "--match-candidates", "9", "--match-min-score", "0.125"]
    args = parse_args([*job_args, "--database-url", "postgresql://localhost/x"])
    assert (args.run_id, args.match_top, args.match_candidates, args.match_min_score) == (7, 4, 9, 0.125)
    with pytest.raises(SystemExit):
        parse_args([*job_args[:-1], "1.5", "--database-url", "postgresql://localhost/x"])
    # No numbers of its own: a job started without them refuses to run.
    with pytest.raises(SystemExit):
        parse_args(["--run-id", "7", "--database-url", "postgresql://localhost/x"])
    with pytest.raises(SystemExit):
        parse_args([*job_args[:3], "0", *job_args[4:], "--database-url", "postgresql://localhost/x"])
