"""What a desk expects of the queue and its own work (issue 32, item 5): "My work" lists
what was assigned or returned to me; the counts move with each row action; counts print
with thousands separators."""

from __future__ import annotations

import re

import pytest
from django.template import engines
from django.urls import reverse

from factcheck.claims.models import Claim, Verdict
from factcheck.claims.workflow import services
from factcheck.templating import thousands
from tests.workflow.factories import make_claim
from tests.workflow.test_claim_views import logged_in

pytestmark = pytest.mark.django_db


def draft(claim: Claim, author) -> Verdict:  # type: ignore[no-untyped-def]
    services.claim_mark_check(claim=claim, actor=author)
    return services.verdict_draft(
        claim=claim, actor=author, rating="true", headline="Right", explanation="As reported.", claim_reviewed="", evidence_ids=[], expected_version=None
    )


def test_my_work_lists_what_was_assigned_and_what_came_back(reviewer, editor, django_user_model) -> None:  # type: ignore[no-untyped-def]
    assigned = make_claim(priority=60.0, sentence="Unemployment fell to 3.1% in June.")
    services.claim_assign(claim=assigned, actor=editor, assignee=reviewer)
    returned = make_claim(priority=40.0, sentence="ICE detained 1,500 people in May.")
    verdict = draft(returned, reviewer)
    services.verdict_return(verdict=verdict, actor=editor, comment="Cite the May table.")
    finished = make_claim(priority=90.0, sentence="The mayor said crime doubled since 2020.")
    services.claim_assign(claim=finished, actor=reviewer, assignee=reviewer)
    services.claim_dismiss(claim=finished, actor=reviewer, reason="Opinion")
    someone_elses = make_claim(priority=80.0, sentence="The state spent $2 billion on shelters.")
    services.claim_assign(claim=someone_elses, actor=editor, assignee=editor)

    response = logged_in(reviewer).get(reverse("claims:inbox"))
    assert response.status_code == 200
    html = response.content.decode()
    returned_part, assigned_part = html.split("<h2>Assigned to me</h2>")
    assert f'id="inbox-claim-{returned.pk}"' in returned_part and "Cite the May table." in returned_part
    assert f'id="inbox-claim-{assigned.pk}"' in assigned_part and f'id="inbox-claim-{assigned.pk}"' not in returned_part
    assert f"inbox-claim-{finished.pk}" not in html and f"inbox-claim-{someone_elses.pk}" not in html
    assert 'href="/claims/inbox/"' in html  # in the navigation, for every reviewer role
    # The editor's own: the claim they hold, and how many verdicts wait for them.
    html = logged_in(editor).get(reverse("claims:inbox")).content.decode()
    assert f"inbox-claim-{someone_elses.pk}" in html and f"inbox-claim-{returned.pk}" not in html
    assert "verdicts awaiting your approval" in html or "verdict awaiting your approval" in html


def test_my_work_reads_in_a_fixed_number_of_queries(reviewer, editor, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    for n in range(12):
        claim = make_claim(outlet=f"Outlet {n}", priority=float(n))
        services.claim_assign(claim=claim, actor=editor, assignee=reviewer)
        if n % 3 == 0:
            services.verdict_return(verdict=draft(claim, reviewer), actor=editor, comment=f"Fix {n}.")
    client = logged_in(reviewer)
    with django_assert_max_num_queries(12):
        html = client.get(reverse("claims:inbox")).content.decode()
    assert html.count('id="inbox-claim-') == 12 and "Fix 9." in html


def test_my_work_needs_a_login_and_a_role_and_a_get(client, outsider, reviewer) -> None:  # type: ignore[no-untyped-def]
    response = client.get(reverse("claims:inbox"))
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert logged_in(outsider).get(reverse("claims:inbox")).status_code == 403
    assert logged_in(reviewer).post(reverse("claims:inbox")).status_code == 405


def test_a_row_action_sends_the_counts_it_changed(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    client = logged_in(reviewer)
    before = client.get(reverse("claims:list")).content.decode()
    assert re.search(r"data-my-claims-left>0 left<", before)
    response = client.post(reverse("claims:row_action", args=[claim.pk]), {"action": "assign_me", "version": 1}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and response["HX-Trigger"] == "claims-changed"
    html = response.content.decode()
    # The navigation's count, out of band, already counting the claim just taken.
    assert re.search(r'<template><a [^>]*id="nav-inbox" hx-swap-oob="true"', html)
    assert re.search(r'id="nav-my-claims" hx-swap-oob="true">My claims <span class="nav-count" data-my-claims-left>1 left<', html)
    response = client.post(
        reverse("claims:row_action", args=[claim.pk]), {"action": "dismiss", "reason": "Opinion", "version": 2}, HTTP_HX_REQUEST="true"
    )
    assert "data-my-claims-left>0 left<" in response.content.decode() and response["HX-Trigger"] == "claims-changed"
    # A refused action changed nothing: no counts, no trigger.
    response = client.post(reverse("claims:row_action", args=[claim.pk]), {"action": "check", "version": 1}, HTTP_HX_REQUEST="true")
    assert response.status_code == 409 and "HX-Trigger" not in response and "hx-swap-oob" not in response.content.decode()


def test_the_queue_count_asks_again_when_the_claims_change(reviewer) -> None:  # type: ignore[no-untyped-def]
    make_claim()
    html = logged_in(reviewer).get(reverse("claims:count") + "?status=new").content.decode()
    assert 'hx-trigger="claims-changed from:body"' in html and 'hx-get="/claims/count/?status=new"' in html


@pytest.mark.parametrize(("value", "shown"), [(15404, "15,404"), (0, "0"), (999, "999"), (1234567, "1,234,567"), ("2048", "2,048"), (None, "None"), ("?", "?")])
def test_counts_print_with_thousands_separators(value, shown) -> None:  # type: ignore[no-untyped-def]
    assert thousands(value) == shown
    assert engines["django"].from_string("{% load numbers %}{{ n|thousands }}").render({"n": value}) == shown
    assert engines["jinja2"].from_string("{{ n|thousands }}").render({"n": value}) == shown


def test_pages_print_big_counts_with_separators(reviewer, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from factcheck.claims.queue import selectors

    monkeypatch.setattr(selectors, "work_counts_cached", lambda user: selectors.WorkCounts(my_claims_left=15404, awaiting_my_approval=None))
    html = logged_in(reviewer).get(reverse("claims:inbox")).content.decode()
    assert "data-my-claims-left>15,404 left<" in html


def test_my_work_shows_a_cluster_once_with_its_returned_comment(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    """A cluster is one piece of work: listed once, with the editor's comment whichever of its
    appearances the verdict was written on."""
    written_on = make_claim(priority=40.0, sentence="ICE detained 1,500 people in May.")
    shown = make_claim(outlet="Boston Globe", priority=70.0, sentence="ICE detained 1,500 people in May.")
    Claim.objects.filter(pk__in=[written_on.pk, shown.pk]).update(cluster_id=written_on.claim_key)
    written_on.refresh_from_db()
    verdict = draft(written_on, reviewer)
    services.verdict_return(verdict=verdict, actor=editor, comment="Cite the May table.")
    html = logged_in(reviewer).get(reverse("claims:inbox")).content.decode()
    assert html.count('id="inbox-claim-') == 1 and f'id="inbox-claim-{shown.pk}"' in html
    assert "Cite the May table." in html


def test_my_work_lists_its_first_clusters_by_priority_and_says_there_are_more(reviewer, editor, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The limit counts clusters, not appearances: a cluster of many appearances takes one
    entry (its best appearance), and past the limit the page says the rest are in My claims."""
    from factcheck.claims.queue import selectors

    monkeypatch.setattr(selectors, "INBOX_MAX_CLAIMS", 2)
    shown = {}
    for n, priority in enumerate((30.0, 70.0, 50.0)):
        best = make_claim(outlet=f"Outlet {n}", priority=priority, sentence=f"Claim {n} said first.")
        others = [make_claim(outlet=f"Outlet {n}-{m}", priority=priority - 1, sentence=f"Claim {n} said again.") for m in range(4)]
        Claim.objects.filter(pk__in=[best.pk, *(c.pk for c in others)]).update(cluster_id=best.claim_key)
        best.refresh_from_db()
        services.claim_assign(claim=best, actor=editor, assignee=reviewer)
        shown[priority] = best
    html = logged_in(reviewer).get(reverse("claims:inbox")).content.decode()
    listed = [int(pk) for pk in re.findall(r'id="inbox-claim-(\d+)"', html)]
    assert listed == [shown[70.0].pk, shown[50.0].pk]
    assert "Only the first claims are listed" in html
    monkeypatch.setattr(selectors, "INBOX_MAX_CLAIMS", 3)
    html = logged_in(reviewer).get(reverse("claims:inbox")).content.decode()
    assert len(re.findall(r'id="inbox-claim-', html)) == 3 and "Only the first claims are listed" not in html
