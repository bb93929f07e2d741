"""The load step against the real PostgreSQL: COPY to staging, one merge, idempotent."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim, ClaimCluster, PriorityBasis, RankingWeights
from factcheck.claims.ranking import DEFAULT_RANKING_WEIGHTS
from factcheck.runs.services import run_create
from factcheck.runs.spark import database_url_for_job
from pipeline import db
from pipeline.nlp.clustering import NodeClaim, claim_node

pytestmark = pytest.mark.django_db(transaction=True)

TEXT = "ICE detained nearly 1,500 people in May. Boston will not back down."
SIGNALS = '{"public_interest": 0.7, "topic": "immigration", "source": 0.2, "specificity": 0.5, "routine": 0.0}'


@pytest.fixture(autouse=True)
def default_weights(db):  # type: ignore[no-untyped-def]
    """The seeded weights (a transactional test's flush empties the table the migration filled)."""
    RankingWeights.objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})


def staged_row(run_id: int, article_id: int, *, score: float, claim_type: str = "numeric", signals: str = SIGNALS) -> tuple[object, ...]:
    end = TEXT.index("May.") + 4
    quantities = '[{"value": 1500.0, "unit": "people", "hedge": "approximately-below"}]'
    return (
        run_id, "c" * 40, article_id, TEXT[:end], 0, end, score, claim_type, "", f"{claim_type},official_action", quantities, "",
        "article", "c" * 40, signals, "",
    )


def test_merge_inserts_then_is_a_no_op_and_keeps_reviewer_columns(reviewer) -> None:  # type: ignore[no-untyped-def]
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])

    # A retried Spark task may COPY the same rows twice; the merge keeps one.
    assert db.copy_to_staging(dsn, [staged_row(run.pk, article.pk, score=0.9)] * 2) == 2
    assert db.merge_staging(dsn, run_id=run.pk) == (1, 1)
    claim = Claim.objects.get()
    assert (claim.score, claim.status, claim.first_run_id, claim.sentence) == (0.9, "new", run.pk, "ICE detained nearly 1,500 people in May.")
    assert claim.claim_types == ["numeric", "official_action"] and claim.quantities[0]["value"] == 1500.0
    assert claim.cluster_key == "c" * 40 and ClaimCluster.objects.get().size == 1
    assert claim.rank_signals == json.loads(SIGNALS) and claim.context == ""
    # The default weights: 30 x 0.9 check-worthiness + 20 x 0.7 public interest + 12 x 0.2 source
    # (the article's own assertion) + 12 x 0.5 specificity + 8 for a number + no spread; recency
    # is not stored (the queue adds it as it reads, from seen_at).
    assert claim.priority_parts == {
        "checkworthiness": 27.0, "public_interest": 14.0, "source": 2.4, "specificity": 6.0, "type": 8.0, "routine": 0.0,
        "spread": 0.0, "outlets": 1, "topic": "immigration", "weights_version": 1,
    }
    assert claim.priority == pytest.approx(57.4, abs=1e-9)
    assert claim.seen_at == article.created_at

    Claim.objects.filter(pk=claim.pk).update(status="check", assignee=reviewer, version=3)
    updated_at = Claim.objects.get().updated_at

    db.copy_to_staging(dsn, [staged_row(run.pk, article.pk, score=0.9)])
    assert db.merge_staging(dsn, run_id=run.pk) == (1, 0)
    assert Claim.objects.get().updated_at == updated_at

    # A better model changes the pipeline's columns, never the reviewer's.
    db.copy_to_staging(dsn, [staged_row(run.pk, article.pk, score=0.95, claim_type="comparison")])
    assert db.merge_staging(dsn, run_id=run.pk) == (1, 1)
    claim.refresh_from_db()
    assert (claim.score, claim.claim_type, claim.status, claim.assignee_id, claim.version) == (0.95, "comparison", "check", reviewer.pk, 3)
    assert (claim.priority_parts["checkworthiness"], claim.priority_parts["type"]) == (28.5, 7.0)
    assert claim.priority == pytest.approx(28.5 + 14.0 + 2.4 + 6.0 + 7.0, abs=1e-9)

    # New signals (a tuned lexicon) are the pipeline's too, and move the priority.
    routine = '{"public_interest": 0.0, "topic": "", "source": 0.2, "specificity": 0.5, "routine": 0.5}'
    db.copy_to_staging(dsn, [staged_row(run.pk, article.pk, score=0.95, claim_type="comparison", signals=routine)])
    assert db.merge_staging(dsn, run_id=run.pk) == (1, 1)
    claim.refresh_from_db()
    assert (claim.rank_signals["routine"], claim.priority_parts["routine"], claim.priority_parts["topic"]) == (0.5, -10.0, "")
    assert claim.priority == pytest.approx(28.5 + 2.4 + 6.0 + 7.0 - 10.0, abs=1e-9)
    assert (claim.status, claim.assignee_id, claim.version) == ("check", reviewer.pk, 3)


def test_merge_stages_and_stores_each_claims_context() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    row = list(staged_row(run.pk, article.pk, score=0.9))
    row[-1] = "ICE agents arrested hundreds in Boston."
    db.copy_to_staging(dsn, [row])
    db.merge_staging(dsn, run_id=run.pk)
    assert Claim.objects.get().context == "ICE agents arrested hundreds in Boston."


def test_merge_clears_the_runs_staging_rows() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    db.copy_to_staging(dsn, [staged_row(run.pk, article.pk, score=0.5)])
    db.merge_staging(dsn, run_id=run.pk)
    with db.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM claim_staging WHERE run_id = %s", (run.pk,)).fetchone() == (0,)


def test_job_may_only_write_its_own_run_fields() -> None:
    with pytest.raises(ValueError):
        db.update_run("postgresql://unused/x", run_id=1, status="succeeded")


def test_run_progress_is_written_by_the_job() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    db.update_run(dsn, run_id=run.pk, stage="writing", progress=0.5, timings={"extract": 1.5})
    run.refresh_from_db()
    assert (run.stage, run.progress, run.timings) == ("writing", 0.5, {"extract": 1.5})


def test_run_articles_are_read_in_buckets() -> None:
    dsn = database_url_for_job()
    ids = [article_ingest(data=ArticleInput(text=f"Article number {n}.", outlet="X"), batch=None)[0].pk for n in range(5)]
    run = run_create(article_ids=ids)
    rows = [row for bucket in range(3) for row in db.read_run_articles(dsn, run_id=run.pk, buckets=3, bucket=bucket)]
    assert sorted(row[0] for row in rows) == sorted(ids)
    assert {row[3] for row in rows} == {"X"}


AGAIN = TEXT + " Again."


def claim_row(run_id: int, article_id: int, key: str, start: int, end: int, cluster_key: str = "") -> tuple[object, ...]:
    """A staged claim as the Spark job stages it: no cluster key yet, no signals."""
    return (run_id, key, article_id, AGAIN[start:end], start, end, 0.5, "other", "", "other", "[]", "", "article", cluster_key, "{}", "")


def test_merge_takes_the_clusterings_assignments_and_remaps_and_counts_each_claim_once() -> None:
    dsn = database_url_for_job()
    first_outlet, _ = article_ingest(data=ArticleInput(text=TEXT, outlet="A"), batch=None)
    second_outlet, _ = article_ingest(data=ArticleInput(text=AGAIN, outlet="B"), batch=None)
    run = run_create(article_ids=[first_outlet.pk, second_outlet.pk])
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    db.copy_to_staging(dsn, [claim_row(run.pk, first_outlet.pk, b, 0, 40), claim_row(run.pk, second_outlet.pk, a, 0, 40)])
    db.copy_to_staging(dsn, [claim_row(run.pk, second_outlet.pk, c, 41, 67)])

    with db.StagedMerge(dsn, run_id=run.pk) as merge:
        merge.insert_claims()
        # Inserted under provisional clusters (their own keys) before the clustering is known.
        with db.connect(dsn) as other:
            assert other.execute("SELECT count(*) FROM claims").fetchone() == (0,)  # nothing visible before the commit
        assert merge.finish(assigned=[(a, a), (b, a)]) == (3, 3)

    clusters = dict(Claim.objects.values_list("claim_key", "cluster_key"))
    assert clusters == {a: a, b: a, c: c}
    joined = ClaimCluster.objects.get(cluster_key=a)
    assert (joined.size, joined.outlet_count) == (2, 2)
    assert Claim.objects.get(claim_key=b).priority_parts["spread"] == 4.0  # two outlets: 12 x ln 2 / ln 8
    assert not ClaimCluster.objects.filter(cluster_key=b).exists()

    # A later run: c's stored cluster merges into a's; c itself is not re-staged, but moves.
    run2 = run_create(article_ids=[second_outlet.pk])
    d = "d" * 40
    db.copy_to_staging(dsn, [claim_row(run2.pk, second_outlet.pk, d, 68, 74)])
    assert db.merge_staging(dsn, run_id=run2.pk, assigned=[(d, a)], remap=[(c, a)]) == (1, 1)
    clusters = dict(Claim.objects.values_list("claim_key", "cluster_key"))
    assert clusters == {a: a, b: a, c: a, d: a}
    assert ClaimCluster.objects.get(cluster_key=a).size == 4
    assert not ClaimCluster.objects.filter(cluster_key=c).exists()

    # The same run again changes nothing.
    db.copy_to_staging(dsn, [claim_row(run2.pk, second_outlet.pk, d, 68, 74)])
    assert db.merge_staging(dsn, run_id=run2.pk, assigned=[(d, a)]) == (1, 0)


def test_merge_keeps_each_claims_signature_for_later_runs() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    row = (*claim_row(run.pk, article.pk, "e" * 40, 0, 40), ["detained", "ice"], [11, -12])
    with db.connect(dsn) as conn:
        db.stage_claims(conn, [row], columns=db.STAGING_COLUMNS + db.SIGNATURE_COLUMNS)
    db.merge_staging(dsn, run_id=run.pk)
    assert list(db.read_stored_bands(dsn, buckets=1, bucket=0)) == [("e" * 40, [11, -12], None, None)]


def test_candidate_claims_carry_the_runs_tokens_and_the_stored_clusters() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    first = run_create(article_ids=[article.pk])
    stored = (*claim_row(first.pk, article.pk, "a" * 40, 0, 40), ["stored", "tokens"], [1])
    both = (*claim_row(first.pk, article.pk, "b" * 40, 41, 60), ["old", "tokens"], [2])
    with db.connect(dsn) as conn:
        db.stage_claims(conn, [stored, both], columns=db.STAGING_COLUMNS + db.SIGNATURE_COLUMNS)
    db.merge_staging(dsn, run_id=first.pk, assigned=[("b" * 40, "a" * 40)])
    # A second run extracts b again (with new tokens) and a new claim c.
    second = run_create(article_ids=[article.pk])
    again = (*claim_row(second.pk, article.pk, "b" * 40, 41, 60), ["new", "tokens"], [2])
    new = (*claim_row(second.pk, article.pk, "c" * 40, 61, 67), ["fresh"], [3])
    with db.connect(dsn) as conn:
        db.stage_claims(conn, [again, new, new], columns=db.STAGING_COLUMNS + db.SIGNATURE_COLUMNS)
    nodes = {key: claim_node(key) for key in ("a" * 40, "b" * 40, "c" * 40, "d" * 40)}
    assert db.read_candidate_claims(dsn, run_id=second.pk, nodes=nodes.values()) == {
        nodes["a" * 40]: [NodeClaim("a" * 40, ["stored", "tokens"], False, "a" * 40)],
        nodes["b" * 40]: [NodeClaim("b" * 40, ["new", "tokens"], True, "a" * 40)],
        nodes["c" * 40]: [NodeClaim("c" * 40, ["fresh"], True, None)],
    }
    assert db.read_candidate_claims(dsn, run_id=second.pk, nodes=[]) == {}


def test_stored_candidates_are_found_through_the_node_index_and_odd_keys_are_stored() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=AGAIN), batch=None)
    run = run_create(article_ids=[article.pk])
    # A key that is not hex (a claim written by other means) is stored; it just has no node.
    db.copy_to_staging(dsn, [claim_row(run.pk, article.pk, "not-a-sha1-key", 0, 40)])
    assert db.merge_staging(dsn, run_id=run.pk) == (1, 1)
    with db.connect(dsn) as conn:
        # Only a bitmap scan on an index matching the expression is left to the planner.
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_indexscan = off")
        plan = "\n".join(line for (line,) in conn.execute("EXPLAIN " + db.READ_STORED_CANDIDATES, {"nodes": [1, 2]}))
    assert "claim_node_idx" in plan  # the query's expression is the index's (migration 0009)


def test_merge_in_bucket_chunks_gives_what_one_merge_gives() -> None:
    dsn = database_url_for_job()
    articles = [article_ingest(data=ArticleInput(text=f"{AGAIN} {outlet}", outlet=outlet), batch=None)[0] for outlet in ("A", "B", "C")]
    run = run_create(article_ids=[article.pk for article in articles])
    keys = ["a" * 40, "b" * 40, "c" * 40]
    db.copy_to_staging(dsn, [claim_row(run.pk, article.pk, key, 0, 40) for article, key in zip(articles, keys, strict=True)])
    with db.StagedMerge(dsn, run_id=run.pk) as merge:
        buckets = {article.pk % 2 for article in articles}
        for bucket in sorted(buckets):  # as the Spark job merges: each bucket once, as it is staged
            merge.insert_claims(buckets=2, chosen=[bucket])
        assert merge.finish(assigned=[(key, keys[0]) for key in keys]) == (3, 3)
    assert set(Claim.objects.values_list("cluster_key", flat=True)) == {keys[0]}
    assert list(ClaimCluster.objects.values_list("cluster_key", "size", "outlet_count")) == [(keys[0], 3, 3)]
    # Every claim carries the spread of its final cluster (three outlets), written once.
    assert {claim.priority_parts["outlets"] for claim in Claim.objects.all()} == {3}


def test_priorities_follow_growing_clusters_and_newer_articles_rewrite_nothing() -> None:
    dsn = database_url_for_job()
    old, _ = article_ingest(data=ArticleInput(text=AGAIN, outlet="A", published_at=datetime(2026, 1, 1, tzinfo=UTC)), batch=None)
    run = run_create(article_ids=[old.pk])
    a = "a" * 40
    db.copy_to_staging(dsn, [claim_row(run.pk, old.pk, a, 0, 40)])
    db.merge_staging(dsn, run_id=run.pk)
    first = Claim.objects.get(claim_key=a)
    assert first.seen_at == datetime(2026, 1, 1, tzinfo=UTC) and "recency" not in first.priority_parts

    # A week newer article from another outlet, a claim of its own: the stored claim's row is
    # not touched (recency is the queue's, at read time).
    lone, _ = article_ingest(data=ArticleInput(text=TEXT, outlet="C", published_at=datetime(2026, 1, 8, tzinfo=UTC)), batch=None)
    run2 = run_create(article_ids=[lone.pk])
    db.copy_to_staging(dsn, [claim_row(run2.pk, lone.pk, "d" * 40, 0, 40)])
    db.merge_staging(dsn, run_id=run2.pk)
    assert Claim.objects.get(claim_key=a).updated_at == first.updated_at

    # Another newer article repeats the claim: its spread counts two outlets, though only b is staged.
    new, _ = article_ingest(data=ArticleInput(text=f"{AGAIN} B", outlet="B", published_at=datetime(2026, 1, 8, tzinfo=UTC)), batch=None)
    run3 = run_create(article_ids=[new.pk])
    b = "b" * 40
    db.copy_to_staging(dsn, [claim_row(run3.pk, new.pk, b, 0, 40)])
    db.merge_staging(dsn, run_id=run3.pk, assigned=[(b, a)])
    parts = Claim.objects.get(claim_key=a).priority_parts
    assert (parts["outlets"], parts["spread"]) == (2, 4.0)
    assert Claim.objects.get(claim_key=b).priority_parts["outlets"] == 2

    # A third outlet joins the stored cluster: its members follow.
    third, _ = article_ingest(data=ArticleInput(text=f"{AGAIN} C", outlet="C", published_at=datetime(2026, 1, 5, tzinfo=UTC)), batch=None)
    run4 = run_create(article_ids=[third.pk])
    c = "c" * 40
    db.copy_to_staging(dsn, [claim_row(run4.pk, third.pk, c, 0, 40, cluster_key=a)])  # staged into a's cluster
    db.merge_staging(dsn, run_id=run4.pk)
    assert {claim.priority_parts["outlets"] for claim in Claim.objects.filter(cluster_key=a)} == {3}


def test_a_merge_catches_up_with_weights_no_rerank_applied() -> None:
    dsn = database_url_for_job()
    first, _ = article_ingest(data=ArticleInput(text=AGAIN, outlet="A", published_at=datetime(2026, 1, 8, tzinfo=UTC)), batch=None)
    run = run_create(article_ids=[first.pk])
    a = "a" * 40
    db.copy_to_staging(dsn, [claim_row(run.pk, first.pk, a, 0, 40)])
    db.merge_staging(dsn, run_id=run.pk)
    assert Claim.objects.get(claim_key=a).priority_parts["checkworthiness"] == 15.0  # 30 x 0.5
    assert PriorityBasis.objects.get().weights_version == 1

    # The admin's new weights are saved but their re-rank never ran (its task failed): the
    # next merge, with no newer article, still brings every stored claim up to them.
    RankingWeights.objects.filter(pk=1).update(weights={**DEFAULT_RANKING_WEIGHTS, "checkworthiness": 60.0}, version=2)
    older, _ = article_ingest(data=ArticleInput(text=f"{AGAIN} B", outlet="B", published_at=datetime(2026, 1, 1, tzinfo=UTC)), batch=None)
    run2 = run_create(article_ids=[older.pk])
    db.copy_to_staging(dsn, [claim_row(run2.pk, older.pk, "b" * 40, 0, 40)])
    db.merge_staging(dsn, run_id=run2.pk)
    parts = Claim.objects.get(claim_key=a).priority_parts
    assert (parts["checkworthiness"], parts["weights_version"]) == (30.0, 2)
    assert PriorityBasis.objects.get().weights_version == 2
