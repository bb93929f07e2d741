"""The cluster is the unit of triage: one claim in three outlets is one status, one assignee,
one set of tags, notes, evidence and verdict; a wrong appearance is split out, audited."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Annotation, Claim, ClaimCluster, ClusterSplit, Evidence, Verdict
from factcheck.claims.workflow import services
from factcheck.claims.workflow.errors import StaleVersion
from factcheck.claims.workflow.selectors import claim_cluster_ids, claim_workspace
from tests.conftest import PERSONA_PASSWORD
from tests.reports.helpers import claim_in_article, cluster_of, publish
from tests.workflow.factories import make_claim

pytestmark = pytest.mark.django_db

S = Claim.Status
QUOTE = "We're definitely going to flood the zone, especially in sanctuary jurisdictions."


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def three_outlets(**fields: object) -> list[Claim]:
    """The same quote in three outlets, one cluster (as the pipeline's merge stores it), and
    a claim of its own beside it."""
    claims = [
        claim_in_article(sentence=QUOTE, outlet=outlet, speaker="Todd Lyons", priority=priority, **fields)  # type: ignore[arg-type]
        for outlet, priority in (("Boston Globe", 60.0), ("Breitbart News", 70.0), ("MassLive", 50.0))
    ]
    cluster_of(claims, first=claims[0])
    for claim in claims:
        claim.refresh_from_db()
    return claims


def states(claims: list[Claim]) -> set[tuple[object, ...]]:
    found = Claim.objects.filter(pk__in=[c.pk for c in claims]).select_related("cluster")
    return {(c.cluster.status, c.cluster.assignee_id, tuple(c.cluster.tags), c.cluster.dismiss_reason, c.cluster.version) for c in found}


def test_check_it_on_one_appearance_moves_the_whole_cluster(reviewer) -> None:  # type: ignore[no-untyped-def]
    globe, breitbart, masslive = three_outlets(status=S.NEW)
    alone = claim_in_article(sentence="Crime rose 12 percent last year.", status=S.NEW)
    response = logged_in(reviewer).post(reverse("claims:triage", args=[breitbart.pk]), {"action": "check", "version": 1})
    assert response.status_code == 302
    assert states([globe, breitbart, masslive]) == {(S.CHECK, None, (), "", 2)}
    alone.refresh_from_db()
    assert (alone.cluster.status, alone.cluster.version) == (S.NEW, 1)
    # One audit row for the cluster, on the appearance acted on; every appearance's page shows it.
    events = AuditEvent.objects.filter(object_type="claim", object_id__in=[globe.pk, breitbart.pk, masslive.pk])
    assert [(e.object_id, e.verb, e.before["status"], e.after["status"]) for e in events] == [(breitbart.pk, "claim.check", "new", "check")]
    page = logged_in(reviewer).get(reverse("claims:detail", args=[masslive.pk])).content.decode()
    assert 'id="claim-status" class="status status-check">Check it<' in page
    # (The history says each change in words, factcheck/audit/wording.py.)
    assert "marked for checking (New → Check it)" in page[page.index('id="history"') :]


def test_assignment_tags_and_versions_are_the_clusters(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    globe, breitbart, masslive = three_outlets()
    services.claim_assign(claim=globe, actor=editor, assignee=reviewer)
    services.claim_tag(claim=masslive, actor=reviewer, add=["sanctuary", "ICE"])
    assert states([globe, breitbart, masslive]) == {(S.IN_RESEARCH, reviewer.pk, ("sanctuary", "ice"), "", 3)}
    # A page opened before the tagging, on another appearance, is stale: nothing is saved.
    with pytest.raises(StaleVersion) as refused:
        services.claim_dismiss(claim=breitbart, actor=reviewer, reason="An opinion", expected_version=2)
    assert [event.verb for event in refused.value.changes] == ["claim.tag"]
    assert states([globe, breitbart, masslive]) == {(S.IN_RESEARCH, reviewer.pk, ("sanctuary", "ice"), "", 3)}


def test_a_verdict_covers_every_appearance_with_the_clusters_notes_and_evidence(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    globe, breitbart, masslive = three_outlets()
    services.annotation_add(claim=globe, actor=reviewer, body="Lyons said it on WBZ first.")
    source = services.evidence_add(claim=breitbart, actor=reviewer, kind="news_report", url="https://www.wbz.example/lyons", title="WBZ interview")
    # Drafted on the third appearance, citing evidence found on the second.
    services.claim_assign(claim=masslive, actor=reviewer, assignee=reviewer)
    draft = services.verdict_draft(
        claim=masslive, actor=reviewer, rating="unverifiable", headline="A pledge, not yet a fact",
        explanation="No operation has started.", evidence_ids=[source.pk],
    )
    assert list(draft.evidence.all()) == [source]
    services.verdict_approve(verdict=draft, actor=editor, expected_version=draft.version)
    assert {c.cluster.status for c in Claim.objects.filter(pk__in=[globe.pk, breitbart.pk, masslive.pk])} == {S.APPROVED}

    for claim in (globe, breitbart, masslive):
        assert services.verdict_current(claim) == draft
        page = logged_in(reviewer).get(reverse("claims:detail", args=[claim.pk])).content.decode()
        assert "A pledge, not yet a fact" in page and "Lyons said it on WBZ first." in page and "WBZ interview" in page
        assert "Published:" in page
        # The published page and its ClaimReview answer for every appearance, listing all three.
        document = json.loads(logged_in(reviewer).get(reverse("publishing:jsonld", args=[claim.pk])).content)
        assert document["reviewRating"]["alternateName"] == "Unverifiable"
        assert len(document["itemReviewed"]["appearance"]) == 3

    # The CSV lists each appearance with the cluster's verdict.
    response = logged_in(reviewer).get(reverse("reports:claims_csv"))
    ids = {str(c.pk) for c in (globe, breitbart, masslive)}
    rows = [row for row in csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())) if row["appearance_id"] in ids]
    assert len(rows) == 3
    assert {(row["verdict_rating"], row["published_rating"]) for row in rows} == {("Unverifiable", "Unverifiable")}
    # One ClaimReview in the feed for the one claim.
    feed = json.loads(b"".join(logged_in(reviewer).get(reverse("publishing:feed")).streaming_content))
    assert len(feed["@graph"]) == 1


def test_a_reviewer_splits_a_wrong_appearance_out_audited(reviewer, editor, outsider) -> None:  # type: ignore[no-untyped-def]
    globe, breitbart, masslive = three_outlets()
    services.claim_assign(claim=globe, actor=reviewer, assignee=reviewer)
    note = services.annotation_add(claim=masslive, actor=reviewer, body="Checked the transcript.")
    found = services.evidence_add(claim=masslive, actor=reviewer, kind="news_report", url="https://example.org/t", title="Transcript")
    old_key = globe.cluster_key
    url = reverse("claims:split", args=[masslive.pk])

    assert logged_in(outsider).post(url, {"reason": "x", "version": 2}).status_code in (403, 404)
    assert logged_in(reviewer).get(url).status_code == 405
    assert logged_in(reviewer).post(url, {"reason": "", "version": 2, "back": globe.pk}).status_code == 400
    # A page opened before the assignment is stale.
    assert logged_in(reviewer).post(url, {"reason": "Another speech", "version": 1, "back": globe.pk}).status_code == 409

    response = logged_in(reviewer).post(url, {"reason": "A different speech, in March", "version": 2, "back": globe.pk})
    assert response.status_code == 302 and response.url == reverse("claims:detail", args=[globe.pk])
    masslive.refresh_from_db()
    assert masslive.cluster_key not in ("", old_key)
    assert (masslive.cluster.status, masslive.cluster.assignee_id, masslive.cluster.version) == (S.NEW, None, 3)
    assert sorted(claim_cluster_ids(claim=globe)) == sorted([globe.pk, breitbart.pk])
    assert states([globe, breitbart]) == {(S.IN_RESEARCH, reviewer.pk, (), "", 2)}
    # The cluster keeps the work written on the appearance it lost.
    workspace = claim_workspace(claim_ids=claim_cluster_ids(claim=globe))
    assert [a.pk for a in workspace.annotations] == [note.pk] and [e.pk for e in workspace.evidence] == [found.pk]
    assert not claim_workspace(claim_ids=[masslive.pk]).annotations
    # Recorded for the pipeline, and the statistics of both clusters follow.
    assert list(ClusterSplit.objects.values_list("claim_key", "apart_cluster_key", "split_by")) == [(masslive.claim_key, old_key, reviewer.pk)]
    assert ClaimCluster.objects.get(cluster_key=old_key).size == 2
    assert ClaimCluster.objects.get(cluster_key=masslive.cluster_key).size == 1
    # Audited on both sides.
    split = AuditEvent.objects.get(object_type="claim", object_id=masslive.pk, verb="claim.split")
    assert (split.actor, split.comment) == (reviewer, "A different speech, in March")
    assert (split.before["cluster"], split.after["cluster"]) == (old_key, masslive.cluster_key)
    assert split.after["moved"] == {"annotations": [note.pk], "evidence": [found.pk], "verdicts": []}
    left = AuditEvent.objects.get(object_type="claim", verb="cluster.split")
    assert left.object_id in (globe.pk, breitbart.pk) and left.after["split_out"] == masslive.pk
    page = logged_in(reviewer).get(reverse("claims:detail", args=[globe.pk])).content.decode()
    assert "Appearances (2)" in page and f"split claim {masslive.pk} out of the cluster: not the same claim" in page
    # Alone now: nothing left to split it from.
    assert logged_in(reviewer).post(url, {"reason": "again", "version": 3}).status_code == 400


def test_splitting_the_appearance_that_holds_the_verdict_moves_the_verdict_with_the_cluster(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    globe, breitbart, masslive = three_outlets()
    verdict = publish(globe, author=reviewer, approver=editor)
    # The cluster's key is the smallest claim key: globe's. Its new key must differ.
    services.claim_split(claim=globe, actor=reviewer, reason="Not the same")
    globe.refresh_from_db()
    assert globe.cluster_key != breitbart.cluster_key and globe.cluster.status == S.NEW
    verdict.refresh_from_db()
    assert verdict.claim_id in (breitbart.pk, masslive.pk)
    assert services.verdict_current(masslive) == verdict and services.verdict_current(globe) is None
    assert Verdict.objects.filter(claim_id__in=[breitbart.pk, masslive.pk]).count() == 1
    assert not Evidence.objects.filter(claim=globe).exists() and not Annotation.objects.filter(claim=globe).exists()


def test_the_queue_shows_one_row_per_cluster_with_its_appearances(reviewer) -> None:  # type: ignore[no-untyped-def]
    globe, breitbart, masslive = three_outlets()
    alone = claim_in_article(sentence="Crime rose 12 percent last year.", priority=55.0)
    html = logged_in(reviewer).get(reverse("claims:list")).content.decode()
    # Breitbart's appearance ranks best: it is the cluster's row.
    assert f'id="claim-{breitbart.pk}"' in html and f'id="claim-{alone.pk}"' in html
    assert f'id="claim-{globe.pk}"' not in html and f'id="claim-{masslive.pk}"' not in html
    row = html[html.index(f'id="claim-{breitbart.pk}"') : html.index("</tr>", html.index(f'id="claim-{breitbart.pk}"'))]
    assert "3 outlets</summary>" in row
    # Opened, it lists the other appearances (claims:row_appearances, asked for when opened).
    url = reverse("claims:row_appearances", args=[breitbart.pk])
    assert f'hx-get="{url}?view="' in row
    appearances = logged_in(reviewer).get(url, {"view": ""}).content.decode()
    for claim in (globe, masslive):
        assert reverse("claims:detail", args=[claim.pk]) in appearances
    # A filter that matches another appearance shows the cluster through it.
    html = logged_in(reviewer).get(reverse("claims:list"), {"outlet": masslive.article.outlet_id}).content.decode()
    assert f'id="claim-{masslive.pk}"' in html and f'id="claim-{breitbart.pk}"' not in html


def test_a_claim_written_without_a_cluster_is_a_cluster_of_one() -> None:
    """save() and bulk_create() give a claim with no cluster its own key and its cluster's row
    (new work); no cluster goes by ''."""
    from django.db import IntegrityError, transaction

    claim = make_claim()
    assert claim.cluster_key == claim.claim_key
    assert (claim.cluster.status, claim.cluster.assignee_id, claim.cluster.version) == (Claim.Status.NEW, None, 1)
    (copy,) = Claim.objects.bulk_create([Claim(article=claim.article, claim_key="f" * 40, sentence="x", start_offset=0, end_offset=1)])
    assert Claim.objects.select_related("cluster").get(pk=copy.pk).cluster.cluster_key == "f" * 40
    with pytest.raises(IntegrityError), transaction.atomic():
        ClaimCluster.objects.create(cluster_key="")


@pytest.mark.django_db(transaction=True)
def test_migrations_0034_0035_move_the_state_onto_each_cluster(reviewer) -> None:  # type: ignore[no-untyped-def]
    """From the copies on every appearance (claims migration 0033) to one row per cluster: a
    cluster whose appearances agree takes their state; one whose appearances differ takes
    merged_state's; a claim saved without its cluster's row gets one; the copies go."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    articles = [claim_in_article(sentence=f"Crime rose {n} percent last year.").article_id for n in range(4)]
    Claim.objects.all().delete()
    ClaimCluster.objects.all().delete()
    executor = MigrationExecutor(connection)
    executor.migrate([("claims", "0033_drop_retired_sql_functions")])
    insert = """
        INSERT INTO claims (article_id, claim_key, sentence, start_offset, end_offset, score, claim_type, claim_types, quantities,
                            speaker, speaker_title, attribution, cluster_key, priority, priority_parts, created_at, updated_at,
                            status, assignee_id, tags, dismiss_reason, version)
        VALUES (%s, %s, 'x', 0, 1, 0.5, 'other', '{}', '[]', '', '', '', %s, 1, '{}', now(), now(), %s, %s, %s, %s, %s)
    """
    rows = [
        # One cluster agreeing: drafted, assigned, tagged.
        (articles[0], "a" * 40, "a" * 40, "drafted", reviewer.pk, ["ice"], "", 4),
        (articles[1], "b" * 40, "a" * 40, "drafted", reviewer.pk, ["ice"], "", 4),
        # One differing (left by hand): the rule keeps the approved side, every tag, a version above.
        (articles[2], "c" * 40, "c" * 40, "dismissed", None, ["opinion"], "Opinion.", 2),
        (articles[3], "d" * 40, "c" * 40, "approved", reviewer.pk, [], "", 5),
    ]
    with connection.cursor() as cursor:
        for row in rows:
            cursor.execute(insert, row)
        cursor.execute("INSERT INTO claim_clusters (cluster_key, size, outlet_count, updated_at) VALUES (%s, 2, 2, now())", ["c" * 40])
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    clusters = {c.cluster_key: c for c in ClaimCluster.objects.all()}
    assert set(clusters) == {"a" * 40, "c" * 40}
    agreed, merged = clusters["a" * 40], clusters["c" * 40]
    assert (agreed.status, agreed.assignee_id, agreed.tags, agreed.version, agreed.size) == ("drafted", reviewer.pk, ["ice"], 4, 2)
    assert (merged.status, merged.assignee_id, merged.tags, merged.dismiss_reason, merged.version) == ("approved", reviewer.pk, ["opinion"], "", 6)
    with connection.cursor() as cursor:
        cursor.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'claims'")
        columns = {name for (name,) in cursor.fetchall()}
    assert not columns & {"status", "assignee_id", "tags", "dismiss_reason", "version"} and "cluster_key" in columns
