"""The load step against the real PostgreSQL: the sink's binary COPY to staging (through
PostgresRun, the store the job writes with), one merge (pipeline.merge), idempotent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import psycopg
import pytest

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim, ClaimCluster, PriorityBasis, RankingWeights
from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS
from factcheck.runs.models import PipelineRun
from factcheck.runs.services import run_create
from factcheck.runs.spark import database_url_for_job
from pipeline import db
from pipeline.merge import merge_run, scalar
from pipeline.nlp.clustering import Clustering, NodeClaim, claim_node
from pipeline.sql import statement
from pipeline.staging import STAGING_COLUMNS, STAGING_GENERATED

pytestmark = pytest.mark.django_db(transaction=True)

TEXT = "ICE detained nearly 1,500 people in May. Boston will not back down."
SIGNALS = '{"public_interest": 0.7, "topic": "immigration", "source": 0.2, "specificity": 0.5, "routine": 0.0}'


@pytest.fixture(autouse=True)
def default_weights(db):  # type: ignore[no-untyped-def]
    """The seeded weights (a transactional test's flush empties the table the migration filled)."""
    RankingWeights.objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})


def staged_row(article_id: int, *, score: float, claim_type: str = "numeric", signals: str = SIGNALS) -> tuple[object, ...]:
    """A claim as extraction produces it (pipeline.staging.CLAIM_COLUMNS)."""
    end = TEXT.index("May.") + 4
    quantities = '[{"value": 1500.0, "unit": "people", "hedge": "approximately-below"}]'
    return (
        "c" * 40, article_id, 0, end, TEXT[:end], "", "", "article", score, claim_type, f"{claim_type},official_action", quantities,
        signals, "", [], [],
    )


def stage(run_id: int, rows: list[tuple[object, ...]]) -> int:
    """As the Spark job's sink writes a partition (udfs.make_claim_writer)."""
    return db.PostgresRun(database_url_for_job(), run_id).write_claims(rows)


def merge(run_id: int, *, assigned: list[tuple[str, str]] = (), remap: list[tuple[str, str]] = ()) -> tuple[int, int]:  # type: ignore[assignment]
    return db.PostgresRun(database_url_for_job(), run_id).merge(Clustering(assigned=dict(assigned), remap=list(remap)))


def test_merge_inserts_then_is_a_no_op_and_keeps_reviewer_columns(reviewer) -> None:  # type: ignore[no-untyped-def]
    database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])

    # A retried Spark task may COPY the same rows twice; the merge keeps one.
    assert stage(run.pk, [staged_row(article.pk, score=0.9)] * 2) == 2
    assert merge(run.pk) == (1, 1)
    claim = Claim.objects.get()
    assert (claim.score, claim.cluster.status, claim.first_run_id, claim.sentence) == (0.9, "new", run.pk, "ICE detained nearly 1,500 people in May.")
    assert claim.claim_types == ["numeric", "official_action"] and claim.quantities[0]["value"] == 1500.0
    assert claim.cluster_key == "c" * 40 and ClaimCluster.objects.get().size == 1
    assert claim.rank_signals == json.loads(SIGNALS) and claim.context == ""
    # The default weights: 30 x 0.9 check-worthiness + 20 x 0.7 public interest + 12 x 0.2 source
    # (the article's own assertion) + 12 x 0.5 specificity + 8 for a number + no spread; recency
    # is not stored (the queue adds it as it reads, from seen_at).
    # No contestability signal staged: 0 of it. The claim leads its own cluster.
    assert claim.priority_parts == {
        "contestability": 0.0, "checkworthiness": 27.0, "public_interest": 14.0, "source": 2.4, "specificity": 6.0, "type": 8.0,
        "routine": 0.0, "spread": 0.0, "outlets": 1, "topic": "immigration", "weights_version": 1, "lead_claim_id": claim.pk,
    }
    assert claim.priority == pytest.approx(57.4, abs=1e-9)
    assert claim.seen_at == article.created_at

    ClaimCluster.objects.filter(appearances=claim).update(status="check", assignee=reviewer, version=3)
    updated_at = Claim.objects.get().updated_at

    stage(run.pk, [staged_row(article.pk, score=0.9)])
    assert merge(run.pk) == (1, 0)
    assert Claim.objects.get().updated_at == updated_at

    # A better model changes the pipeline's columns, never the reviewer's.
    stage(run.pk, [staged_row(article.pk, score=0.95, claim_type="comparison")])
    assert merge(run.pk) == (1, 1)
    claim.refresh_from_db()
    assert (claim.score, claim.claim_type) == (0.95, "comparison")
    assert (claim.cluster.status, claim.cluster.assignee_id, claim.cluster.version) == ("check", reviewer.pk, 3)
    assert (claim.priority_parts["checkworthiness"], claim.priority_parts["type"]) == (28.5, 7.0)
    assert claim.priority == pytest.approx(28.5 + 14.0 + 2.4 + 6.0 + 7.0, abs=1e-9)

    # New signals (a tuned lexicon) are the pipeline's too, and move the priority.
    routine = '{"public_interest": 0.0, "topic": "", "source": 0.2, "specificity": 0.5, "routine": 0.5}'
    stage(run.pk, [staged_row(article.pk, score=0.95, claim_type="comparison", signals=routine)])
    assert merge(run.pk) == (1, 1)
    claim.refresh_from_db()
    assert (claim.rank_signals["routine"], claim.priority_parts["routine"], claim.priority_parts["topic"]) == (0.5, -10.0, "")
    assert claim.priority == pytest.approx(28.5 + 2.4 + 6.0 + 7.0 - 10.0, abs=1e-9)
    assert (claim.cluster.status, claim.cluster.assignee_id, claim.cluster.version) == ("check", reviewer.pk, 3)


def test_merge_stages_and_stores_each_claims_context() -> None:
    database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    row = list(staged_row(article.pk, score=0.9))
    row[13] = "ICE agents arrested hundreds in Boston."
    stage(run.pk, [tuple(row)])
    merge(run.pk)
    assert Claim.objects.get().context == "ICE agents arrested hundreds in Boston."


def test_merge_clears_the_runs_staging_rows() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    stage(run.pk, [staged_row(article.pk, score=0.5)])
    merge(run.pk)
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


def claim_row(article_id: int, key: str, start: int, end: int, tokens: list[str] = (), bands: list[int] = ()) -> tuple[object, ...]:  # type: ignore[assignment]
    """A claim as extraction produces it, with no signals."""
    return (key, article_id, start, end, AGAIN[start:end], "", "", "article", 0.5, "other", "other", "[]", "{}", "", list(tokens), list(bands))


def test_merge_takes_the_clusterings_assignments_and_remaps_and_counts_each_claim_once() -> None:
    dsn = database_url_for_job()
    first_outlet, _ = article_ingest(data=ArticleInput(text=TEXT, outlet="A"), batch=None)
    second_outlet, _ = article_ingest(data=ArticleInput(text=AGAIN, outlet="B"), batch=None)
    run = run_create(article_ids=[first_outlet.pk, second_outlet.pk])
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    stage(run.pk, [claim_row(first_outlet.pk, b, 0, 40), claim_row(second_outlet.pk, a, 0, 40)])
    stage(run.pk, [claim_row(second_outlet.pk, c, 41, 67)])

    with db.connect(dsn) as conn:
        assert merge_run(conn, run_id=run.pk, clustering=Clustering(assigned={a: a, b: a}, remap=[])) == (3, 3)
        with db.connect(dsn) as other:
            assert other.execute("SELECT count(*) FROM claims").fetchone() == (0,)  # nothing visible before the commit

    clusters = dict(Claim.objects.values_list("claim_key", "cluster_id"))
    assert clusters == {a: a, b: a, c: c}
    joined = ClaimCluster.objects.get(cluster_key=a)
    assert (joined.size, joined.outlet_count) == (2, 2)
    assert Claim.objects.get(claim_key=b).priority_parts["spread"] == 4.0  # two outlets: 12 x ln 2 / ln 8
    assert not ClaimCluster.objects.filter(cluster_key=b).exists()

    # A later run: c's stored cluster merges into a's; c itself is not re-staged, but moves.
    run2 = run_create(article_ids=[second_outlet.pk])
    d = "d" * 40
    stage(run2.pk, [claim_row(second_outlet.pk, d, 68, 74)])
    assert merge(run2.pk, assigned=[(d, a)], remap=[(c, a)]) == (1, 1)
    clusters = dict(Claim.objects.values_list("claim_key", "cluster_id"))
    assert clusters == {a: a, b: a, c: a, d: a}
    assert ClaimCluster.objects.get(cluster_key=a).size == 4
    assert not ClaimCluster.objects.filter(cluster_key=c).exists()

    # The same run again changes nothing.
    stage(run2.pk, [claim_row(second_outlet.pk, d, 68, 74)])
    assert merge(run2.pk, assigned=[(d, a)]) == (1, 0)


def test_merge_keeps_each_claims_signature_for_later_runs() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    e = "e" * 40
    stage(run.pk, [claim_row(article.pk, e, 0, 40, ["detained", "ice"], [11, -12])])
    merge(run.pk)
    with db.connect(dsn) as conn:
        assert conn.execute("SELECT tokens, bands FROM claim_signatures WHERE claim_key = %s", (e,)).fetchall() == [(["detained", "ice"], [11, -12])]
        assert sorted(conn.execute("SELECT band, node FROM claim_bands WHERE node = %s", (claim_node(e),))) == [(-12, claim_node(e)), (11, claim_node(e))]
    # The claim again with another signature: its band keys are replaced, not added to; the
    # same again writes nothing.
    run2 = run_create(article_ids=[article.pk])
    stage(run2.pk, [claim_row(article.pk, e, 0, 40, ["detained", "ice", "people"], [11, 13])])
    merge(run2.pk)
    run3 = run_create(article_ids=[article.pk])
    stage(run3.pk, [claim_row(article.pk, e, 0, 40, ["detained", "ice", "people"], [11, 13])])
    assert merge(run3.pk) == (1, 0)
    with db.connect(dsn) as conn:
        assert sorted(conn.execute("SELECT band FROM claim_bands WHERE node = %s", (claim_node(e),))) == [(11,), (13,)]


def band_rows(key: str) -> list[tuple[int]]:
    with db.connect(database_url_for_job()) as conn:
        return sorted(conn.execute("SELECT band FROM claim_bands WHERE node = %s", (claim_node(key),)).fetchall())


def test_a_failed_band_write_rolls_the_merge_back_and_the_retry_writes_both(monkeypatch: pytest.MonkeyPatch) -> None:
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    # A key of its own: claim_bands has no model, so a transactional test's flush leaves it.
    e = "fa" * 20
    stage(run.pk, [claim_row(article.pk, e, 0, 40, ["detained", "ice"], [11, -12])])

    def connection_lost(conn: object, *, run_id: int) -> None:
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(db, "write_run_bands", connection_lost)
    with pytest.raises(psycopg.OperationalError):
        merge(run.pk)
    # The merge waited for the band keys before its commit: nothing of the run is stored, its
    # staged rows are still there for the retry.
    assert not Claim.objects.exists() and band_rows(e) == []
    monkeypatch.undo()
    assert merge(run.pk) == (1, 1)
    assert Claim.objects.filter(claim_key=e).exists() and band_rows(e) == [(-12,), (11,)]


def test_band_keys_of_a_failed_merge_find_no_claim_and_the_retry_stores_it(monkeypatch: pytest.MonkeyPatch) -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    e = "fb" * 20  # a key of its own, as above
    stage(run.pk, [claim_row(article.pk, e, 0, 40, ["detained", "ice"], [11, -12])])
    real = db.merge_run

    def disk_full(*args: object, **kwargs: object) -> tuple[int, int]:
        raise psycopg.errors.DiskFull("could not extend file: No space left on device")

    monkeypatch.setattr(db, "merge_run", disk_full)
    with pytest.raises(psycopg.errors.DiskFull):
        merge(run.pk)
    # The band keys committed on their own; they name a node no stored claim has.
    assert band_rows(e) == [(-12,), (11,)] and not Claim.objects.exists()
    assert db.read_candidate_claims(dsn, run_id=run.pk, nodes=[claim_node(e)]) == {claim_node(e): [NodeClaim(e, ["detained", "ice"], True, None)]}
    monkeypatch.setattr(db, "merge_run", real)
    assert merge(run.pk) == (1, 1) and band_rows(e) == [(-12,), (11,)]


def test_candidate_claims_carry_the_runs_tokens_and_the_stored_clusters() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    first = run_create(article_ids=[article.pk])
    stored = claim_row(article.pk, "a" * 40, 0, 40, ["stored", "tokens"], [1])
    both = claim_row(article.pk, "b" * 40, 41, 60, ["old", "tokens"], [2])
    stage(first.pk, [stored, both])
    merge(first.pk, assigned=[("b" * 40, "a" * 40)])
    # A second run extracts b again (with new tokens) and a new claim c.
    second = run_create(article_ids=[article.pk])
    again = claim_row(article.pk, "b" * 40, 41, 60, ["new", "tokens"], [2])
    new = claim_row(article.pk, "c" * 40, 61, 67, ["fresh"], [3])
    stage(second.pk, [again, new, new])
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
    stage(run.pk, [claim_row(article.pk, "not-a-sha1-key", 0, 40)])
    assert merge(run.pk) == (1, 1)
    with db.connect(dsn) as conn:
        # Only a bitmap scan on an index matching the expression is left to the planner.
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_indexscan = off")
        plan = "\n".join(line for (line,) in conn.execute("EXPLAIN " + statement("read_stored_candidates"), {"nodes": [1, 2]}))
    assert "claim_node_idx" in plan  # the query's expression is the index's (migration 0009)


def test_a_cluster_across_three_outlets_is_merged_with_its_final_spread() -> None:
    database_url_for_job()
    articles = [article_ingest(data=ArticleInput(text=f"{AGAIN} {outlet}", outlet=outlet), batch=None)[0] for outlet in ("A", "B", "C")]
    run = run_create(article_ids=[article.pk for article in articles])
    keys = ["a" * 40, "b" * 40, "c" * 40]
    stage(run.pk, [claim_row(article.pk, key, 0, 40) for article, key in zip(articles, keys, strict=True)])
    assert merge(run.pk, assigned=[(key, keys[0]) for key in keys]) == (3, 3)
    assert set(Claim.objects.values_list("cluster_id", flat=True)) == {keys[0]}
    assert list(ClaimCluster.objects.values_list("cluster_key", "size", "outlet_count")) == [(keys[0], 3, 3)]
    # Every claim carries the spread of its final cluster (three outlets), written once.
    assert {claim.priority_parts["outlets"] for claim in Claim.objects.all()} == {3}


def test_a_new_claim_is_written_once_with_its_clusters_lead_and_a_stronger_newcomer_leads_the_stored() -> None:
    """Every write of a claim updates all of its indexes: the merge inserts each new claim with
    the priority of its cluster's lead, and the refresh after it rewrites none of them."""
    dsn = database_url_for_job()
    articles = [article_ingest(data=ArticleInput(text=f"{AGAIN} {outlet}", outlet=outlet), batch=None)[0] for outlet in ("A", "B", "C")]
    run = run_create(article_ids=[article.pk for article in articles[:2]])
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    weak, strong = claim_row(articles[0].pk, a, 0, 40), claim_row(articles[1].pk, b, 0, 40)
    strong = strong[:8] + (0.9,) + strong[9:]  # b scores higher: b leads, though a has the smaller id
    stage(run.pk, [weak, strong])
    with db.connect(dsn) as conn:
        assert merge_run(conn, run_id=run.pk, clustering=Clustering(assigned={a: a, b: a}, remap=[])) == (2, 2)
        updates = conn.execute("SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relname = 'claims'").fetchone()
    assert updates == (0,)  # inserted once, not updated after
    lead = Claim.objects.get(claim_key=b)
    assert ClaimCluster.objects.get(cluster_key=a).lead_claim_id == lead.pk
    assert {(claim.priority, claim.priority_parts["lead_claim_id"], claim.priority_parts["checkworthiness"]) for claim in Claim.objects.all()} == {
        (lead.priority, lead.pk, 27.0)
    }

    # A later run: a stronger appearance joins the stored cluster. It is inserted leading it;
    # the stored members take its parts (those are the only rows the refresh rewrites).
    run2 = run_create(article_ids=[articles[2].pk])
    stronger = claim_row(articles[2].pk, c, 0, 40)
    stage(run2.pk, [stronger[:8] + (1.0,) + stronger[9:]])
    assert merge(run2.pk, assigned=[(c, a)]) == (1, 1)
    newcomer = Claim.objects.get(claim_key=c)
    assert ClaimCluster.objects.get(cluster_key=a).lead_claim_id == newcomer.pk
    assert {(claim.priority_parts["lead_claim_id"], claim.priority_parts["outlets"]) for claim in Claim.objects.all()} == {(newcomer.pk, 3)}


def rewrites_of_a_full_refresh(dsn: str) -> int:
    """The claims refresh_cluster_priorities.sql would rewrite over every cluster (rolled back)."""
    with db.connect(dsn) as conn:
        keys = [key for (key,) in conn.execute("SELECT DISTINCT cluster_key FROM claims")]
        rewritten = conn.execute(statement("refresh_cluster_priorities"), {"cluster_keys": keys}).rowcount
        conn.rollback()
    return rewritten


# Claims whose stored queue rank is not the one claims_set_queue_rank computes (the merge
# supplies its own rank; claims migration 0038).
RANKS_NOT_AS_DEFINED = (
    "SELECT count(*) FROM claims c, claim_queue_basis() b"
    " WHERE c.queue_rank IS DISTINCT FROM claim_queue_rank_at(c.priority, c.seen_at, b.day, b.weight, b.half_life_days)"
)


def ranks_not_as_defined(dsn: str) -> int:
    with db.connect(dsn) as conn:
        row = conn.execute(RANKS_NOT_AS_DEFINED).fetchone()
    return int(row[0]) if row else -1


def scored(row: tuple[object, ...], score: float) -> tuple[object, ...]:
    return row[:8] + (score,) + row[9:]


def test_the_merge_refreshes_only_clusters_with_stored_claims_and_leaves_every_priority_final() -> None:
    """merge_claims writes each run claim with its final cluster's lead and outlets, and its
    queue rank, so the refresh after it reads only the clusters that held stored claims (a
    cluster new in the run is the run's alone): whatever the run did, a refresh of every cluster
    finds nothing to change, and every rank is the one the trigger would give."""
    dsn = database_url_for_job()
    articles = [article_ingest(data=ArticleInput(text=f"{AGAIN} {outlet}", outlet=outlet), batch=None)[0] for outlet in "ABCDE"]
    a, b, c, d, e = ("a" * 40, "b" * 40, "c" * 40, "d" * 40, "0" * 40)

    # A new cluster across two outlets, led by the stronger b, and a claim alone.
    run = run_create(article_ids=[article.pk for article in articles[:3]])
    stage(run.pk, [claim_row(articles[0].pk, a, 0, 40), scored(claim_row(articles[1].pk, b, 0, 40), 0.9), claim_row(articles[2].pk, d, 0, 40)])
    merge(run.pk, assigned=[(a, a), (b, a)])
    assert rewrites_of_a_full_refresh(dsn) == 0 and ranks_not_as_defined(dsn) == 0
    assert all(claim.queue_rank > 0 for claim in Claim.objects.all())
    assert ClaimCluster.objects.get(cluster_key=a).lead_claim_id == Claim.objects.get(claim_key=b).pk

    # A stronger newcomer joins the stored cluster: its stored members take its lead.
    run2 = run_create(article_ids=[articles[3].pk])
    stage(run2.pk, [scored(claim_row(articles[3].pk, c, 0, 40), 1.0)])
    merge(run2.pk, assigned=[(c, a)])
    assert rewrites_of_a_full_refresh(dsn) == 0 and ranks_not_as_defined(dsn) == 0
    newcomer = Claim.objects.get(claim_key=c).pk
    assert {claim.priority_parts["lead_claim_id"] for claim in Claim.objects.filter(cluster_id=a)} == {newcomer}

    # A new claim under a smaller key takes the lone stored claim's cluster into its own.
    run3 = run_create(article_ids=[articles[4].pk])
    stage(run3.pk, [scored(claim_row(articles[4].pk, e, 0, 40), 0.2)])
    merge(run3.pk, assigned=[(e, e)], remap=[(d, e)])
    assert rewrites_of_a_full_refresh(dsn) == 0 and ranks_not_as_defined(dsn) == 0
    moved = Claim.objects.get(claim_key=d)
    assert moved.cluster_id == e and moved.priority_parts["outlets"] == 2
    assert ClaimCluster.objects.get(cluster_key=e).lead_claim_id == moved.pk  # 0.5 leads 0.2


def test_priorities_follow_growing_clusters_and_newer_articles_rewrite_nothing() -> None:
    database_url_for_job()
    old, _ = article_ingest(data=ArticleInput(text=AGAIN, outlet="A", published_at=datetime(2026, 1, 1, tzinfo=UTC)), batch=None)
    run = run_create(article_ids=[old.pk])
    a = "a" * 40
    stage(run.pk, [claim_row(old.pk, a, 0, 40)])
    merge(run.pk)
    first = Claim.objects.get(claim_key=a)
    assert first.seen_at == datetime(2026, 1, 1, tzinfo=UTC) and "recency" not in first.priority_parts

    # A week newer article from another outlet, a claim of its own: the stored claim's row is
    # not touched (recency is the queue's, at read time).
    lone, _ = article_ingest(data=ArticleInput(text=TEXT, outlet="C", published_at=datetime(2026, 1, 8, tzinfo=UTC)), batch=None)
    run2 = run_create(article_ids=[lone.pk])
    stage(run2.pk, [claim_row(lone.pk, "d" * 40, 0, 40)])
    merge(run2.pk)
    assert Claim.objects.get(claim_key=a).updated_at == first.updated_at

    # Another newer article repeats the claim: its spread counts two outlets, though only b is staged.
    new, _ = article_ingest(data=ArticleInput(text=f"{AGAIN} B", outlet="B", published_at=datetime(2026, 1, 8, tzinfo=UTC)), batch=None)
    run3 = run_create(article_ids=[new.pk])
    b = "b" * 40
    stage(run3.pk, [claim_row(new.pk, b, 0, 40)])
    merge(run3.pk, assigned=[(b, a)])
    parts = Claim.objects.get(claim_key=a).priority_parts
    assert (parts["outlets"], parts["spread"]) == (2, 4.0)
    assert Claim.objects.get(claim_key=b).priority_parts["outlets"] == 2

    # A third outlet joins the stored cluster: its members follow.
    third, _ = article_ingest(data=ArticleInput(text=f"{AGAIN} C", outlet="C", published_at=datetime(2026, 1, 5, tzinfo=UTC)), batch=None)
    run4 = run_create(article_ids=[third.pk])
    c = "c" * 40
    stage(run4.pk, [claim_row(third.pk, c, 0, 40)])
    merge(run4.pk, assigned=[(c, a)])
    assert {claim.priority_parts["outlets"] for claim in Claim.objects.filter(cluster_id=a)} == {3}


def test_a_merge_catches_up_with_weights_no_rerank_applied() -> None:
    database_url_for_job()
    first, _ = article_ingest(data=ArticleInput(text=AGAIN, outlet="A", published_at=datetime(2026, 1, 8, tzinfo=UTC)), batch=None)
    run = run_create(article_ids=[first.pk])
    a = "a" * 40
    stage(run.pk, [claim_row(first.pk, a, 0, 40)])
    merge(run.pk)
    assert Claim.objects.get(claim_key=a).priority_parts["checkworthiness"] == 15.0  # 30 x 0.5
    assert PriorityBasis.objects.get().weights_version == 1

    # The admin's new weights are saved but their re-rank never ran (its task failed): the
    # next merge, with no newer article, still brings every stored claim up to them.
    RankingWeights.objects.filter(pk=1).update(weights={**DEFAULT_RANKING_WEIGHTS, "checkworthiness": 60.0}, version=2)
    older, _ = article_ingest(data=ArticleInput(text=f"{AGAIN} B", outlet="B", published_at=datetime(2026, 1, 1, tzinfo=UTC)), batch=None)
    run2 = run_create(article_ids=[older.pk])
    stage(run2.pk, [claim_row(older.pk, "b" * 40, 0, 40)])
    merge(run2.pk)
    parts = Claim.objects.get(claim_key=a).priority_parts
    assert (parts["checkworthiness"], parts["weights_version"]) == (30.0, 2)
    assert PriorityBasis.objects.get().weights_version == 2


SEARCH_AS_DEFINED = (
    "SELECT search = claim_search_vector(sentence, speaker) AND phrase_pairs = claim_word_pairs(claim_search_vector(sentence, speaker))"
    " FROM claims WHERE id = %s"
)


def search_as_defined(claim_id: int) -> bool:
    with db.connect(database_url_for_job()) as conn:
        row = conn.execute(SEARCH_AS_DEFINED, (claim_id,)).fetchone()
    return bool(row and row[0])


def test_a_claims_search_columns_come_from_staging_and_follow_every_change() -> None:
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    stage(run.pk, [staged_row(article.pk, score=0.9)])
    with db.connect(database_url_for_job()) as conn:
        staged = conn.execute("SELECT search::text, phrase_pairs FROM claim_staging WHERE run_id = %s", (run.pk,)).fetchone()
    # Computed by claim_staging as the COPY arrived ...
    assert staged is not None and "'detain':2" in staged[0] and "detain near" in staged[1]
    merge(run.pk)
    claim = Claim.objects.get()
    # ... and inserted as they were.
    with db.connect(database_url_for_job()) as conn:
        assert conn.execute("SELECT search::text, phrase_pairs FROM claims WHERE id = %s", (claim.pk,)).fetchone() == staged
    assert search_as_defined(claim.pk)
    assert Claim.objects.filter(pk=claim.pk, search="boston").count() == 0

    # A change of the sentence or the speaker has them computed again, by whatever writer.
    Claim.objects.filter(pk=claim.pk).update(sentence="Boston will not back down.", speaker="Michelle Wu")
    assert search_as_defined(claim.pk) and Claim.objects.filter(pk=claim.pk, search="boston").exists()
    assert "back michell" not in Claim.objects.get(pk=claim.pk).phrase_pairs and "michell wu" in Claim.objects.get(pk=claim.pk).phrase_pairs
    # A writer cannot set them to anything else; a write of other columns leaves them be.
    with db.connect(database_url_for_job()) as conn:
        conn.execute("UPDATE claims SET search = 'nothing', phrase_pairs = '{}' WHERE id = %s", (claim.pk,))
        conn.execute("UPDATE claims SET score = 0.1 WHERE id = %s", (claim.pk,))
    assert search_as_defined(claim.pk)

    # An insert that does not supply them (any writer but the merge) has them computed.
    other = Claim.objects.create(
        article=article, claim_key="d" * 40, sentence="Boston will not back down.", start_offset=41, end_offset=67, cluster=claim.cluster,
    )
    assert search_as_defined(other.pk)


def test_claim_staging_is_the_one_definition_of_a_claims_columns() -> None:
    """The table the migrations built has exactly pipeline.staging's columns and types, and
    computes the search columns it names itself."""
    with db.connect(database_url_for_job()) as conn:
        rows = conn.execute(
            "SELECT attname, format_type(atttypid, atttypmod), attgenerated FROM pg_attribute"
            " WHERE attrelid = 'claim_staging'::regclass AND attnum > 0 AND NOT attisdropped"
        ).fetchall()
    assert {name: sql_type for name, sql_type, generated in rows if not generated} == {column.name: column.sql_type for column in STAGING_COLUMNS}
    assert {name for name, _, generated in rows if generated} == set(STAGING_GENERATED)


def test_a_run_reads_only_the_stored_band_keys_its_own_claims_produce() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=AGAIN), batch=None)
    first = run_create(article_ids=[article.pk])
    a, b, c, d = "a" * 40, "b" * 40, "c" * 40, "d" * 40
    stage(first.pk, [claim_row(article.pk, a, 0, 40, ["x"], [1, 2]), claim_row(article.pk, b, 41, 60, ["y"], [3, 4])])
    merge(first.pk)
    # The next run shares band 2 with a, nothing with b, and extracts b again (its own row
    # carries b's bands); d has no bands.
    second = run_create(article_ids=[article.pk])
    stage(second.pk, [claim_row(article.pk, c, 61, 67, ["z"], [2, 9]), claim_row(article.pk, b, 41, 60, ["y"], [3, 4]),
                      claim_row(article.pk, d, 68, 74)])
    assert db.read_stored_memberships(dsn, run_id=second.pk) == [(claim_node(a), 2)]
    with db.connect(dsn) as conn:
        # Joined against claim_bands' b-tree (band first), not a scan of every stored band.
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(line for (line,) in conn.execute("EXPLAIN " + statement("read_stored_memberships"), {"run_id": second.pk}))
    assert "claim_bands_pkey" in plan


def test_the_sink_reports_the_extractions_progress_as_claims_pass_before_its_commit() -> None:
    dsn = database_url_for_job()
    ids = [article_ingest(data=ArticleInput(text=f"{TEXT} Story {n}.", outlet="X"), batch=None)[0].pk for n in range(3)]
    run = run_create(article_ids=ids)
    rows = [staged_row(ids[0], score=0.5), staged_row(ids[0], score=0.6), staged_row(ids[1], score=0.7), staged_row(ids[2], score=0.8)]
    seen_mid_stream: list[tuple[int, int]] = []

    def claims() -> Iterator[tuple[object, ...]]:
        for n, row in enumerate(rows):
            if n == 3:  # three claims passed, one report made; the COPY is not committed yet
                seen_mid_stream.append(PipelineRun.objects.filter(pk=run.pk).values_list("articles_done", "claims_count").get())
            yield row

    with db.connect(dsn) as conn, db.connect(dsn) as progress_conn:
        progress_conn.autocommit = True
        staged = db.stage_claims(conn, ((run.pk, *row) for row in db.extraction_progress(claims(), progress_conn, run.pk, every=2)))
    assert staged == 4
    assert seen_mid_stream == [(1, 2)]  # the first report: the first article, its two claims
    run.refresh_from_db()
    assert (run.articles_done, run.claims_count) == (3, 4)

    # A retried Spark task counts its articles again; the count stops at the run's articles.
    assert stage(run.pk, rows) == 4
    run.refresh_from_db()
    assert (run.articles_done, run.claims_count) == (3, 8)


def test_a_new_stage_starts_its_clock() -> None:
    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    assert run.stage_started_at is None
    db.update_run(dsn, run_id=run.pk, stage="extracting", articles_done=0)
    run.refresh_from_db()
    assert run.stage_started_at is not None
    started = run.stage_started_at
    db.update_run(dsn, run_id=run.pk, claims_count=5)  # counts alone leave the stage's clock alone
    run.refresh_from_db()
    assert run.stage_started_at == started


def word_claim(article_id: int, n: int) -> tuple[object, ...]:
    """A claim of its own words (each adds entries to the search indexes)."""
    sentence = f"Claim {n} says " + " ".join(f"w{n}x{word}" for word in range(8)) + "."
    return (f"{n:040x}", article_id, n, n + 1, sentence, "", "", "article", 0.5, "other", "other", "[]", "{}", "", [], [])


def found(dsn: str, word: str) -> int:
    with db.connect(dsn) as conn:
        return scalar(conn, "SELECT count(*) FROM claims WHERE search @@ websearch_to_tsquery('english', %(word)s)", {"word": word})


def test_the_merge_leaves_its_search_entries_pending_and_the_run_after_settles_them() -> None:
    """However small the connection's pending-list limit, the merge does not flush the GIN
    indexes itself (pipeline.merge.PENDING_LIST_LIMIT): its claims are found at once all the
    same, and the task sent after the run flushes the entries into the indexes, once."""
    from factcheck.runs import services, tasks

    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text="x" * 2000), batch=None)
    run = run_create(article_ids=[article.pk])
    claims = 1500
    stage(run.pk, [word_claim(article.pk, n) for n in range(claims)])
    with db.connect(dsn) as conn:
        conn.execute("SET gin_pending_list_limit = 64")  # kB, the smallest: 8 pages
        conn.commit()
        assert merge_run(conn, run_id=run.pk, clustering=Clustering(assigned={}, remap=[])) == (claims, claims)
    assert found(dsn, "w1234x5") == 1 and found(dsn, "claim") == claims  # read from the pending list

    flushed = services.search_indexes_settle()
    assert flushed["claim_search_idx"] > 8 and flushed["claim_phrase_pairs_idx"] > 8  # none flushed during the merge
    assert set(flushed) >= {"claim_search_idx", "claim_phrase_pairs_idx", "claim_speaker_trgm_idx", "cluster_tags_idx"}
    assert found(dsn, "w1234x5") == 1 and found(dsn, "claim") == claims  # now from the indexes
    assert set(services.search_indexes_settle().values()) == {0}  # nothing left pending
    tasks.search_indexes_settle()  # the task after a run: the same, idempotent
    # And the claims' pages are marked all-visible (a vacuum sets both figures), so the queue's
    # walks read its order's index alone.
    with db.connect(dsn) as conn:
        pages, visible = conn.execute("SELECT relpages, relallvisible FROM pg_class WHERE relname = 'claims'").fetchone()
    assert pages > 0 and visible == pages


def test_the_merge_checks_its_run_and_model_version_once_and_the_orm_keeps_the_keys() -> None:
    """claims' run and model-version keys have no constraint in the database (claims migration
    0040): the merge refuses a version that does not exist before writing anything, a deleted
    run leaves its claims with no run (SET_NULL), and a version that scored claims cannot be
    deleted (PROTECT)."""
    from django.db.models import ProtectedError

    from factcheck.learning.models import ModelKind, ModelVersion

    dsn = database_url_for_job()
    article, _ = article_ingest(data=ArticleInput(text=TEXT), batch=None)
    run = run_create(article_ids=[article.pk])
    stage(run.pk, [staged_row(article.pk, score=0.9)])
    with db.connect(dsn) as conn, pytest.raises(LookupError, match="model version that does not exist"):
        merge_run(conn, run_id=run.pk, clustering=Clustering(assigned={}, remap=[]), model_version_id=987654)
    assert not Claim.objects.exists()

    version = ModelVersion.objects.create(kind=ModelKind.CHECKWORTHINESS, label="merge-test")
    with db.connect(dsn) as conn:
        assert merge_run(conn, run_id=run.pk, clustering=Clustering(assigned={}, remap=[]), model_version_id=version.pk) == (1, 1)
    claim = Claim.objects.get()
    assert (claim.first_run_id, claim.last_run_id, claim.model_version_id) == (run.pk, run.pk, version.pk)
    with pytest.raises(ProtectedError):
        version.delete()
    run.delete()
    claim.refresh_from_db()
    assert (claim.first_run_id, claim.last_run_id, claim.model_version_id) == (None, None, version.pk)
