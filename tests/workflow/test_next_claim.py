"""The claim page goes on through the queue view it was opened from: a decision (a dismissal,
a verdict sent, approved or returned) moves to the view's next claim; other actions stay."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, ClaimCluster, Verdict
from factcheck.claims.workflow import services
from tests.workflow.factories import make_claim
from tests.workflow.test_claim_views import logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def view_world() -> dict[str, Claim]:
    return {
        "first": make_claim(outlet="MassLive", priority=90.0),
        "other": make_claim(outlet="Boston Globe", priority=80.0),
        "second": make_claim(outlet="MassLive", priority=70.0),
    }


def in_view(url: str, view: str) -> str:
    return f"{url}?{urlencode({'view': view})}"


def test_a_dismissal_moves_to_the_next_claim_of_the_view(reviewer, view_world) -> None:  # type: ignore[no-untyped-def]
    first, second = view_world["first"], view_world["second"]
    view = f"outlet={first.article.outlet_id}"
    response = logged_in(reviewer).post(
        in_view(reverse("claims:triage", args=[first.pk]), view), {"action": "dismiss", "reason": "Opinion", "version": 1}
    )
    assert response.status_code == 302 and response["Location"] == in_view(reverse("claims:detail", args=[second.pk]), view)
    first.refresh_from_db()
    assert (first.cluster.status, first.cluster.dismiss_reason) == ("dismissed", "Opinion")
    assert AuditEvent.objects.filter(object_type="claim", object_id=first.pk, verb="claim.dismiss").count() == 1


def test_the_last_claim_of_the_view_goes_back_to_the_view(reviewer, view_world) -> None:  # type: ignore[no-untyped-def]
    second = view_world["second"]
    view = f"outlet={second.article.outlet_id}"
    client = logged_in(reviewer)
    response = client.post(in_view(reverse("claims:triage", args=[second.pk]), view), {"action": "dismiss", "reason": "Opinion", "version": 1})
    assert response.status_code == 302 and response["Location"] == f"{reverse('claims:list')}?{view}"
    assert "That was the last claim of this view" in client.get(response["Location"]).content.decode()


def test_actions_that_are_not_decisions_stay_on_the_claim_in_its_view(reviewer, view_world) -> None:  # type: ignore[no-untyped-def]
    first = view_world["first"]
    view = f"outlet={first.article.outlet_id}"
    client = logged_in(reviewer)
    response = client.post(in_view(reverse("claims:triage", args=[first.pk]), view), {"action": "check", "version": 1})
    assert response["Location"] == in_view(reverse("claims:detail", args=[first.pk]), view)
    page = client.get(response["Location"]).content.decode()
    # The page knows its view: the queue link goes back to it, the forms carry it on.
    assert f'href="/claims/?{view}"' in page
    assert f'action="{in_view(reverse("claims:annotate", args=[first.pk]), view)}"' in page


def test_without_a_view_a_decision_stays_on_the_claim(reviewer, view_world) -> None:  # type: ignore[no-untyped-def]
    first = view_world["first"]
    response = logged_in(reviewer).post(reverse("claims:triage", args=[first.pk]), {"action": "dismiss", "reason": "Opinion", "version": 1})
    assert response["Location"] == reverse("claims:detail", args=[first.pk])


def test_a_sent_verdict_and_an_approval_move_on_in_the_whole_queue(reviewer, editor, view_world) -> None:  # type: ignore[no-untyped-def]
    first, other = view_world["first"], view_world["other"]
    services.claim_mark_check(claim=first, actor=reviewer)
    response = logged_in(reviewer).post(
        in_view(reverse("claims:verdict", args=[first.pk]), ""),
        {"rating": "true", "headline": "Right", "explanation": "As reported.", "version": ""},
    )
    # The whole queue (an empty view): the next claim is the Globe's.
    assert response.status_code == 302 and response["Location"] == in_view(reverse("claims:detail", args=[other.pk]), "")
    verdict = Verdict.objects.get(claim=first)
    response = logged_in(editor).post(
        in_view(reverse("claims:verdict-review", args=[verdict.pk]), ""), {"decision": "approve", "version": verdict.version}
    )
    assert response["Location"] == in_view(reverse("claims:detail", args=[other.pk]), "")
    first.refresh_from_db()
    assert first.cluster.status == "approved"


def test_the_page_offers_the_next_claim_and_ignores_invalid_view_filters(reviewer, view_world) -> None:  # type: ignore[no-untyped-def]
    first, second, other = view_world["first"], view_world["second"], view_world["other"]
    client = logged_in(reviewer)
    page = client.get(in_view(reverse("claims:detail", args=[first.pk]), f"outlet={first.article.outlet_id}")).content.decode()
    assert 'id="next-claim" data-key="j"' in page and f"/claims/{second.pk}/?view=outlet%3D{first.article.outlet_id}" in page
    # An invalid filter is dropped, as the queue drops it: the view is the whole queue.
    page = client.get(in_view(reverse("claims:detail", args=[first.pk]), "score_min=7")).content.decode()
    assert f"/claims/{other.pk}/?view=" in page
    page = client.get(reverse("claims:detail", args=[first.pk])).content.decode()
    assert 'id="next-claim"' not in page


def test_the_next_claim_is_the_next_cluster_row_not_another_appearance(reviewer, view_world) -> None:  # type: ignore[no-untyped-def]
    first, other = view_world["first"], view_world["other"]
    # The first claim's cluster appears again between it and the Globe's: one row in the queue,
    # so the next claim after it is the Globe's.
    again = make_claim(outlet="Breitbart", priority=85.0, cluster_key=first.claim_key)
    Claim.objects.filter(pk=first.pk).update(cluster_id=first.claim_key)
    client = logged_in(reviewer)
    page = client.get(in_view(reverse("claims:detail", args=[first.pk]), "")).content.decode()
    assert re.search(r'<a href="([^"]+)" id="next-claim"', page).group(1) == in_view(reverse("claims:detail", args=[other.pk]), "")  # type: ignore[union-attr]
    response = client.post(in_view(reverse("claims:triage", args=[first.pk]), ""), {"action": "dismiss", "reason": "Opinion", "version": 1})
    assert response["Location"] == in_view(reverse("claims:detail", args=[other.pk]), "")
    again.refresh_from_db()
    assert again.cluster.status == "dismissed"  # the cluster's state: every appearance


def test_next_claim_skips_work_finished_since_the_view_was_opened(reviewer, view_world) -> None:  # type: ignore[no-untyped-def]
    """Issue 32: after a verdict the app went on to a claim just dismissed. The claims between
    this one and the next still to do (dismissed, drafted, approved) are passed over."""
    first, other, second = view_world["first"], view_world["other"], view_world["second"]
    ClaimCluster.objects.filter(appearances=other).update(status=Claim.Status.DISMISSED, dismiss_reason="Opinion")
    finished = [make_claim(priority=p, status=s) for p, s in ((75.0, Claim.Status.DRAFTED), (72.0, Claim.Status.APPROVED))]
    services.claim_mark_check(claim=first, actor=reviewer)
    response = logged_in(reviewer).post(
        in_view(reverse("claims:verdict", args=[first.pk]), ""),
        {"rating": "true", "headline": "Right", "explanation": "As reported.", "version": ""},
    )
    assert response.status_code == 302 and response["Location"] == in_view(reverse("claims:detail", args=[second.pk]), "")
    # The page's own "next claim" link (j) skips them too.
    page = logged_in(reviewer).get(in_view(reverse("claims:detail", args=[first.pk]), "")).content.decode()
    assert re.search(r'<a href="([^"]+)" id="next-claim"', page).group(1) == in_view(reverse("claims:detail", args=[second.pk]), "")  # type: ignore[union-attr]
    assert all(f"/claims/{claim.pk}/" not in page for claim in [other, *finished])


def test_a_view_of_finished_work_walks_that_work(reviewer, view_world) -> None:  # type: ignore[no-untyped-def]
    """A view that names only finished statuses (looking dismissals over) goes on through them;
    a view that names some statuses still to do goes on through those only."""
    first, other, second = view_world["first"], view_world["other"], view_world["second"]
    ClaimCluster.objects.filter(appearances__in=[first, second]).update(status=Claim.Status.DISMISSED, dismiss_reason="Opinion")
    client = logged_in(reviewer)
    page = client.get(in_view(reverse("claims:detail", args=[first.pk]), "status=dismissed")).content.decode()
    assert re.search(r'<a href="([^"]+)" id="next-claim"', page).group(1) == in_view(reverse("claims:detail", args=[second.pk]), "status=dismissed")  # type: ignore[union-attr]
    page = client.get(in_view(reverse("claims:detail", args=[first.pk]), "status=dismissed&status=new")).content.decode()
    assert re.search(r'<a href="([^"]+)" id="next-claim"', page).group(1) == in_view(  # type: ignore[union-attr]
        reverse("claims:detail", args=[other.pk]), "status=dismissed&status=new"
    )
