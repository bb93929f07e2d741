"""The cluster's reviewer state through later runs' merges (pipeline/cluster_state.py, pipeline.merge.unify_clusters)
and a reviewer's split through the next run's clustering, against the real PostgreSQL."""

from __future__ import annotations

import pytest

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, ClaimCluster, ClusterSplit, RankingWeights
from factcheck.claims.queue.selectors import QueueCounts, claims_count
from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS
from factcheck.claims.workflow import services
from factcheck.claims.workflow.errors import StaleVersion
from factcheck.claims.workflow.selectors import claim_cluster_ids, claim_workspace
from factcheck.runs.services import run_create
from factcheck.runs.spark import database_url_for_job
from pipeline import db
from pipeline.cluster_state import SPLIT_OUT
from pipeline.nlp.clustering import NodeClaim, claim_node, resolve_clusters
from tests.pipeline.test_db_merge import AGAIN, claim_row, merge, stage
from tests.reports.helpers import publish

pytestmark = pytest.mark.django_db(transaction=True)

S = Claim.Status
A, B, C, D, E = ("a" * 40, "b" * 40, "c" * 40, "d" * 40, "e" * 40)
QUOTE_TOKENS = ["definitely", "flood", "jurisdictions", "sanctuary", "zone"]


@pytest.fixture(autouse=True)
def default_weights(db):  # type: ignore[no-untyped-def]
    RankingWeights.objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})


def outlets(*names: str) -> list[int]:
    return [article_ingest(data=ArticleInput(text=f"{AGAIN} {name}", outlet=name), batch=None)[0].pk for name in names]


def claims(*keys: str) -> list[Claim]:
    found = {claim.claim_key: claim for claim in Claim.objects.filter(claim_key__in=keys).select_related("cluster")}
    return [found[key] for key in keys]


def test_a_later_appearance_of_a_verdicted_claim_shows_it_verdicted(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    database_url_for_job()
    first, second, third = outlets("Boston Globe", "Breitbart News", "MassLive")
    run = run_create(article_ids=[first, second])
    stage(run.pk, [claim_row(first, A, 0, 40), claim_row(second, B, 0, 40)])
    merge(run.pk, assigned=[(A, A), (B, A)])
    a, _ = claims(A, B)
    services.claim_mark_check(claim=a, actor=reviewer)
    verdict = publish(a, author=reviewer, approver=editor)
    (version,) = {claim.cluster.version for claim in claims(A, B)}
    audit_rows = AuditEvent.objects.count()

    later = run_create(article_ids=[third])
    stage(later.pk, [claim_row(third, D, 0, 40)])
    merge(later.pk, assigned=[(D, A)])

    a, b, d = claims(A, B, D)
    assert d.cluster_key == A
    # It joins the cluster's state at its version: nobody's open page went stale.
    assert {(c.cluster.status, c.cluster.assignee_id, c.cluster.version) for c in (a, b, d)} == {(S.APPROVED, reviewer.pk, version)}
    assert services.verdict_current(d) == verdict
    assert AuditEvent.objects.count() == audit_rows  # nothing to unify: no "cluster.merge"
    # A re-run of the same changes nothing.
    again = run_create(article_ids=[third])
    stage(again.pk, [claim_row(third, D, 0, 40)])
    assert merge(again.pk, assigned=[(D, A)]) == (1, 0)
    assert {(c.cluster.status, c.cluster.version) for c in claims(A, B, D)} == {(S.APPROVED, version)}


def test_two_clusters_that_merge_keep_every_note_evidence_and_audit_row(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    database_url_for_job()
    first, second, third, fourth = outlets("Boston Globe", "Breitbart News", "MassLive", "WBZ")
    run = run_create(article_ids=[first, second, third])
    stage(run.pk, [claim_row(first, A, 0, 40), claim_row(second, B, 0, 40), claim_row(third, C, 0, 40)])
    merge(run.pk, assigned=[(A, A), (B, A)])
    a, b, c = claims(A, B, C)
    assert c.cluster_key == C
    # One cluster triaged and tagged, with a note and evidence; the other researched and drafted.
    services.claim_mark_check(claim=a, actor=reviewer)
    services.claim_tag(claim=b, actor=reviewer, add=["ice"])
    note_a = services.annotation_add(claim=b, actor=reviewer, body="Said on WBZ.")
    evidence_a = services.evidence_add(claim=a, actor=reviewer, kind="news_report", url="https://wbz.example/1", title="WBZ")
    services.claim_mark_check(claim=c, actor=editor)
    services.claim_start_research(claim=c, actor=editor)
    services.claim_tag(claim=c, actor=editor, add=["boston"])
    note_c = services.annotation_add(claim=c, actor=editor, body="Transcript requested.")
    draft = services.verdict_draft(claim=c, actor=editor, rating="unverifiable", headline="A pledge", explanation="Nothing yet.")
    before_versions = {claim.claim_key: claim.cluster.version for claim in claims(A, B, C)}
    audit_before = set(AuditEvent.objects.values_list("id", flat=True))

    later = run_create(article_ids=[fourth])
    stage(later.pk, [claim_row(fourth, E, 0, 40)])
    merge(later.pk, assigned=[(E, A)], remap=[(C, A)])

    merged = claims(A, B, C, E)
    assert {claim.cluster_key for claim in merged} == {A}
    # One row holds the merged cluster's state; the merged-away cluster's row is gone.
    assert not ClaimCluster.objects.filter(cluster_key=C).exists()
    # The most advanced status (drafted) with its assignee, every tag, a version above both.
    assert {(claim.cluster.status, claim.cluster.assignee_id, tuple(claim.cluster.tags)) for claim in merged} == {(S.DRAFTED, editor.pk, ("boston", "ice"))}
    assert {claim.cluster.version for claim in merged} == {max(before_versions.values()) + 1}
    # Nothing lost: every note, evidence entry and verdict reads for the merged cluster ...
    workspace = claim_workspace(claim_ids=claim_cluster_ids(claim=merged[0]))
    assert [n.pk for n in workspace.annotations] == [note_a.pk, note_c.pk]
    assert [e.pk for e in workspace.evidence] == [evidence_a.pk]
    assert [v.pk for v in workspace.verdicts] == [draft.pk] and services.verdict_current(merged[3]) == draft
    # ... every audit row is kept, and one more names the clusters it unified.
    audit_after = set(AuditEvent.objects.values_list("id", flat=True))
    assert audit_before < audit_after
    (event,) = AuditEvent.objects.filter(id__in=audit_after - audit_before)
    assert (event.verb, event.actor, event.object_id) == ("cluster.merge", None, min(claim.pk for claim in merged))
    assert event.after["merged"] == [A, C] and event.after["status"] == S.DRAFTED and event.after["assignee"] == editor.username
    assert len(event.before["states"]) == 2
    # A page opened on either side before the merge is stale.
    for key in (A, C):
        with pytest.raises(StaleVersion):
            services.claim_assign(claim=merged[0], actor=editor, assignee=reviewer, expected_version=before_versions[key])


def test_a_drafted_assigned_cluster_merging_with_a_new_one_keeps_its_state_and_version(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    database_url_for_job()
    first, second, third, fourth = outlets("Boston Globe", "Breitbart News", "MassLive", "WBZ")
    run = run_create(article_ids=[first, second, third])
    stage(run.pk, [claim_row(first, A, 0, 40), claim_row(second, B, 0, 40), claim_row(third, C, 0, 40)])
    merge(run.pk, assigned=[(A, A), (B, A)])
    a, _, c = claims(A, B, C)
    # Every claim is in a cluster: c, alone, is a cluster of one under its own key.
    assert c.cluster_key == C and ClaimCluster.objects.get(cluster_key=C).size == 1
    services.claim_mark_check(claim=a, actor=editor)
    services.claim_start_research(claim=a, actor=editor)
    services.claim_tag(claim=a, actor=editor, add=["ice"])
    services.verdict_draft(claim=a, actor=editor, rating="unverifiable", headline="A pledge", explanation="Nothing yet.")
    (state,) = {(x.cluster.status, x.cluster.assignee_id, tuple(x.cluster.tags), x.cluster.version) for x in claims(A, B)}
    assert state[:2] == (S.DRAFTED, editor.pk)
    audit_rows = AuditEvent.objects.count()

    # The next run joins the untouched cluster c to a, with a new appearance e.
    later = run_create(article_ids=[fourth])
    stage(later.pk, [claim_row(fourth, E, 0, 40)])
    merge(later.pk, assigned=[(E, A)], remap=[(C, A)])

    merged = claims(A, B, C, E)
    assert {x.cluster_key for x in merged} == {A}
    # Nobody worked on c or e: they take a's state at its version, and no open page goes stale.
    assert {(x.cluster.status, x.cluster.assignee_id, tuple(x.cluster.tags), x.cluster.version) for x in merged} == {state}
    assert AuditEvent.objects.count() == audit_rows
    assert not ClaimCluster.objects.filter(cluster_key=C).exists() and ClaimCluster.objects.get(cluster_key=A).size == 4
    assert claims_count(Claim.objects.all()) == QueueCounts(claims=1, appearances=4)


def test_an_approved_cluster_merging_with_a_dismissed_one_stays_approved_audited(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    database_url_for_job()
    first, second, third, fourth, fifth = outlets("Boston Globe", "Breitbart News", "MassLive", "WBZ", "Herald")
    run = run_create(article_ids=[first, second, third, fourth])
    stage(run.pk, [claim_row(first, A, 0, 40), claim_row(second, B, 0, 40), claim_row(third, C, 0, 40), claim_row(fourth, D, 0, 40)])
    merge(run.pk, assigned=[(A, A), (B, A), (C, C), (D, C)])
    a, _, c, _ = claims(A, B, C, D)
    assert claims_count(Claim.objects.all()) == QueueCounts(claims=2, appearances=4)
    services.claim_mark_check(claim=a, actor=reviewer)
    verdict = publish(a, author=reviewer, approver=editor)
    services.claim_tag(claim=c, actor=editor, add=["opinion"])
    services.claim_dismiss(claim=c, actor=editor, reason="Opinion, not a claim.")
    approved = claims(A)[0]
    before = {x.claim_key: x.cluster.version for x in claims(A, B, C, D)}
    assert claims(C)[0].cluster.status == S.DISMISSED

    later = run_create(article_ids=[fifth])
    stage(later.pk, [claim_row(fifth, E, 0, 40)])
    merge(later.pk, assigned=[(E, A)], remap=[(C, A)])

    merged = claims(A, B, C, D, E)
    assert {x.cluster_key for x in merged} == {A}
    # The most advanced status with its assignee and reason, every tag, a version above both.
    assert {(x.cluster.status, x.cluster.assignee_id, x.cluster.dismiss_reason, tuple(x.cluster.tags)) for x in merged} == {
        (S.APPROVED, approved.cluster.assignee_id, "", (*approved.cluster.tags, "opinion"))
    }
    assert {x.cluster.version for x in merged} == {max(before.values()) + 1}
    assert services.verdict_current(claims(D)[0]) == verdict
    (event,) = AuditEvent.objects.filter(verb="cluster.merge")
    assert (event.actor, event.object_id, event.after["merged"], event.after["status"]) == (None, min(x.pk for x in merged), [A, C], S.APPROVED)
    assert sorted(state["status"] for state in event.before["states"]) == [S.APPROVED, S.DISMISSED]
    assert claims_count(Claim.objects.all()) == QueueCounts(claims=1, appearances=5)
    for key in (A, C):
        with pytest.raises(StaleVersion):
            services.claim_assign(claim=merged[0], actor=editor, assignee=reviewer, expected_version=before[key])


def test_an_assigned_appearance_split_out_starts_new_and_each_side_keeps_its_own_state_in_the_next_run(reviewer) -> None:  # type: ignore[no-untyped-def]
    database_url_for_job()
    first, second, third, fourth, fifth = outlets("Boston Globe", "Breitbart News", "MassLive", "WBZ", "Herald")
    run = run_create(article_ids=[first, second, third])
    stage(run.pk, [claim_row(first, A, 0, 40), claim_row(second, B, 0, 40), claim_row(third, C, 0, 40)])
    merge(run.pk, assigned=[(A, A), (B, A), (C, A)])
    a, _, c = claims(A, B, C)
    services.claim_mark_check(claim=a, actor=reviewer)
    services.claim_start_research(claim=a, actor=reviewer)
    services.claim_tag(claim=a, actor=reviewer, add=["budget"])
    kept = {(x.cluster.status, x.cluster.assignee_id, tuple(x.cluster.tags), x.cluster.version) for x in claims(A, B, C)}
    assert len(kept) == 1 and next(iter(kept))[:2] == (S.IN_RESEARCH, reviewer.pk)

    services.claim_split(claim=c, actor=reviewer, reason="A different speech")
    c = claims(C)[0]
    assert (c.cluster_key, c.cluster.status, c.cluster.assignee_id, tuple(c.cluster.tags), c.cluster.dismiss_reason) == (
        C, SPLIT_OUT.status, SPLIT_OUT.assignee_id, SPLIT_OUT.tags, SPLIT_OUT.dismiss_reason
    )
    assert ClaimCluster.objects.get(cluster_key=C).size == 1 and ClaimCluster.objects.get(cluster_key=A).size == 2
    assert claims_count(Claim.objects.all()) == QueueCounts(claims=2, appearances=3)

    # A new appearance joins each side: each takes its own cluster's state.
    later = run_create(article_ids=[fourth, fifth])
    stage(later.pk, [claim_row(fourth, D, 0, 40), claim_row(fifth, E, 0, 40)])
    merge(later.pk, assigned=[(D, A), (E, C)])
    assert {(x.cluster.status, x.cluster.assignee_id, tuple(x.cluster.tags), x.cluster.version) for x in claims(A, B, D)} == kept
    assert {(x.cluster.status, x.cluster.assignee_id, tuple(x.cluster.tags)) for x in claims(C, E)} == {(S.NEW, None, ())}
    assert {x.cluster_key for x in claims(C, E)} == {C}
    assert not AuditEvent.objects.filter(verb="cluster.merge").exists()


def test_a_split_appearance_stays_apart_in_the_next_run(reviewer) -> None:  # type: ignore[no-untyped-def]
    dsn = database_url_for_job()
    first, second = outlets("Boston Globe", "MassLive")
    run = run_create(article_ids=[first, second])
    stage(run.pk, [claim_row(first, A, 0, 40, QUOTE_TOKENS), claim_row(second, B, 0, 40, QUOTE_TOKENS)])
    merge(run.pk, assigned=[(A, A), (B, A)])
    _, b = claims(A, B)
    services.claim_split(claim=b, actor=reviewer, reason="A different speech")
    split_key = Claim.objects.get(claim_key=B).cluster_key
    assert split_key == B

    # The next run extracts b again, as like a as before, and a new claim like both.
    later = run_create(article_ids=[first, second])
    stage(later.pk, [claim_row(second, B, 0, 40, QUOTE_TOKENS), claim_row(first, D, 41, 67, QUOTE_TOKENS)])
    nodes = [claim_node(key) for key in (A, B, D)]
    candidates = db.read_candidate_claims(dsn, run_id=later.pk, nodes=nodes)
    assert candidates[claim_node(A)] == [NodeClaim(A, QUOTE_TOKENS, False, A, frozenset({B}))]
    assert candidates[claim_node(B)] == [NodeClaim(B, QUOTE_TOKENS, True, B, frozenset({A}))]
    pairs = [(nodes[0], nodes[1]), (nodes[0], nodes[2]), (nodes[1], nodes[2])]
    clustering = resolve_clusters(pairs, candidates)
    assert clustering.remap == []
    db.PostgresRun(dsn, later.pk).merge(clustering)

    a, b, d = claims(A, B, D)
    assert (a.cluster_key, b.cluster_key) == (A, B)
    assert d.cluster_key == A  # the new claim joins one side (the first in key order), never both
    assert list(ClusterSplit.objects.values_list("claim_key", "apart_cluster_key")) == [(B, A)]


def test_a_split_follows_its_cluster_when_that_cluster_merges_into_another(reviewer) -> None:  # type: ignore[no-untyped-def]
    database_url_for_job()
    first, second, third = outlets("Boston Globe", "MassLive", "WBZ")
    run = run_create(article_ids=[first, second, third])
    stage(run.pk, [claim_row(first, B, 0, 40), claim_row(second, C, 0, 40), claim_row(third, D, 0, 40)])
    merge(run.pk, assigned=[(B, B), (C, B)])
    services.claim_split(claim=Claim.objects.get(claim_key=C), actor=reviewer, reason="Not the same")
    # Cluster b merges into a new cluster a: the split now keeps c apart from a.
    later = run_create(article_ids=[third])
    stage(later.pk, [claim_row(third, A, 41, 67)])
    merge(later.pk, assigned=[(A, A)], remap=[(B, A)])
    assert list(ClusterSplit.objects.values_list("claim_key", "apart_cluster_key")) == [(C, A)]


def test_resolve_clusters_refuses_a_union_across_a_split() -> None:
    tokens = QUOTE_TOKENS
    claims_by_node = {
        1: [NodeClaim(A, tokens, False, A, frozenset({B}))],
        2: [NodeClaim(B, tokens, False, B, frozenset({A}))],
        3: [NodeClaim(D, tokens, True, None)],
    }
    clustering = resolve_clusters([(1, 2), (1, 3), (2, 3)], claims_by_node)
    assert clustering.remap == [] and clustering.assigned == {D: A}
    # Without the split the three are one cluster.
    plain = {node: [NodeClaim(c.claim_key, c.tokens, c.in_run, c.stored_cluster)] for node, (c,) in claims_by_node.items()}
    assert resolve_clusters([(1, 2), (1, 3), (2, 3)], plain).remap == [(B, A)]


def test_a_worked_cluster_merging_into_a_new_claims_key_keeps_its_state_on_the_new_row(reviewer) -> None:  # type: ignore[no-untyped-def]
    """The surviving key is the smallest: a new claim's (A) when it joins a stored cluster (C).
    The cluster row A did not exist; it takes C's state as it was, and C's row goes."""
    database_url_for_job()
    first, second, third = outlets("Boston Globe", "Breitbart News", "MassLive")
    run = run_create(article_ids=[first, second])
    stage(run.pk, [claim_row(first, C, 0, 40), claim_row(second, D, 0, 40)])
    merge(run.pk, assigned=[(C, C), (D, C)])
    c, _ = claims(C, D)
    services.claim_mark_check(claim=c, actor=reviewer)
    services.claim_assign(claim=c, actor=reviewer, assignee=reviewer)
    services.claim_tag(claim=c, actor=reviewer, add=["budget"])
    worked = ClaimCluster.objects.get(cluster_key=C)
    audit_rows = AuditEvent.objects.count()

    later = run_create(article_ids=[third])
    stage(later.pk, [claim_row(third, A, 0, 40)])
    merge(later.pk, assigned=[(A, A)], remap=[(C, A)])

    assert not ClaimCluster.objects.filter(cluster_key=C).exists()
    cluster = ClaimCluster.objects.get(cluster_key=A)
    assert (cluster.status, cluster.assignee_id, cluster.tags, cluster.version, cluster.size) == (
        S.CHECK, reviewer.pk, ["budget"], worked.version, 3
    )
    assert {x.cluster_key for x in claims(A, C, D)} == {A}
    # One side's work, nothing unified: no "cluster.merge" row, and no open page went stale.
    assert AuditEvent.objects.count() == audit_rows
    services.claim_tag(claim=claims(D)[0], actor=reviewer, add=["ice"])
    # A re-run writes nothing.
    again = run_create(article_ids=[third])
    stage(again.pk, [claim_row(third, A, 0, 40)])
    assert merge(again.pk, assigned=[(A, A)]) == (1, 0)
    assert ClaimCluster.objects.get(cluster_key=A).tags == ["budget", "ice"]


def test_an_action_locks_and_writes_the_one_cluster_row_not_its_appearances(reviewer) -> None:  # type: ignore[no-untyped-def]
    """Five appearances, one row written: the cluster's. The statements an action sends name
    claim_clusters for the lock and the write and never update claims."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    database_url_for_job()
    ids = outlets("Boston Globe", "Breitbart News", "MassLive", "WBZ", "Herald")
    keys = [A, B, C, D, E]
    run = run_create(article_ids=ids)
    stage(run.pk, [claim_row(article, key, 0, 40) for article, key in zip(ids, keys, strict=True)])
    merge(run.pk, assigned=[(key, A) for key in keys])
    updated = {x.claim_key: x.updated_at for x in claims(*keys)}
    claim = claims(C)[0]

    with CaptureQueriesContext(connection) as captured:
        services.claim_mark_check(claim=claim, actor=reviewer)
    statements = [query["sql"] for query in captured.captured_queries]
    locks = [sql for sql in statements if "FOR UPDATE" in sql]
    assert len(locks) == 1 and 'FROM "claim_clusters"' in locks[0] and 'OF "claim_clusters"' in locks[0]
    writes = [sql for sql in statements if sql.startswith("UPDATE")]
    assert len(writes) == 1 and writes[0].startswith('UPDATE "claim_clusters"')
    assert {x.claim_key: x.updated_at for x in claims(*keys)} == updated
    assert {(x.cluster.status, x.cluster.version) for x in claims(*keys)} == {(S.CHECK, 2)}
