"""The queue's ranking: the PostgreSQL formula, the admins' weights page, the re-rank it starts.

Personas: admin sets the weights; reviewer and editor may not (403); outsider (no role) 403;
anonymous is sent to log in.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, ClaimCluster, PriorityBasis, RankingWeights
from factcheck.claims.queue.selectors import queue_page
from factcheck.claims.ranking import services
from factcheck.claims.ranking.priority import DEFAULT_RANKING_WEIGHTS, WEIGHT_FIELDS
from factcheck.claims.tasks import ranking_rerank
from factcheck.runs.spark import database_url_for_job
from pipeline.merge import MERGE_LOCK_ID
from tests.conftest import PERSONA_PASSWORD
from tests.workflow.factories import join_cluster

pytestmark = pytest.mark.django_db

NEWEST = datetime(2026, 3, 8, 12, tzinfo=UTC)
ECONOMY = {"public_interest": 0.7, "topic": "economy", "source": 1.0, "specificity": 0.9, "routine": 0.0}
ROUTINE = {"public_interest": 0.0, "topic": "", "source": 0.2, "specificity": 0.9, "routine": 1.0}


@pytest.fixture(autouse=True)
def default_weights(db):  # type: ignore[no-untyped-def]
    RankingWeights.objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def priority_parts(*, score: float, claim_type: str, signals: dict[str, Any], outlets: int | None, days_old: float) -> dict[str, Any]:
    """The standing parts (claim_priority_parts) with the recency points the queue's stored
    order adds (claim_queue_rank_at: whole days back from the order's day, here NEWEST's, with
    the stored weights), and `priority` their sum."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.parts, claim_queue_rank_at(0, %s, claim_seen_day(%s),"
            " (w.weights->>'recency')::float8, (w.weights->>'recency_half_life_days')::float8)"
            " FROM claim_priority_parts(%s, %s, %s::jsonb, %s) p"
            " CROSS JOIN (SELECT COALESCE((SELECT weights FROM ranking_weights WHERE id = 1), %s::jsonb) AS weights) w",
            [NEWEST - timedelta(days=days_old), NEWEST, score, claim_type, json.dumps(signals), outlets, json.dumps(DEFAULT_RANKING_WEIGHTS)],
        )
        (parts, recency) = cursor.fetchone()
    parts = parts if isinstance(parts, dict) else json.loads(parts)
    return {**parts, "recency": recency, "priority": round(parts["priority"] + recency, 4)}


def test_the_function_gives_every_part_and_their_sum_with_the_default_weights() -> None:
    parts = priority_parts(score=0.9, claim_type="numeric", signals=ECONOMY, outlets=2, days_old=7)
    # 30 x 0.9 + 20 x 0.7 + 12 x 1.0 + 12 x 0.9 + 8 (numeric) + 0 + 12 x ln 2 / ln 8 + 10 x 0.5 (one half-life)
    assert parts == {
        "contestability": 0.0, "checkworthiness": 27.0, "public_interest": 14.0, "source": 12.0, "specificity": 10.8, "type": 8.0,
        "routine": 0.0, "spread": 4.0, "recency": 5.0, "outlets": 2, "topic": "economy", "weights_version": 1, "priority": 80.8,
    }


def test_contestability_counts_its_weight_times_the_ranking_models_probability() -> None:
    contested = priority_parts(score=0.9, claim_type="numeric", signals={**ECONOMY, "contestability": 0.8125}, outlets=2, days_old=7)
    assert contested["contestability"] == 130.0  # 160 x 0.8125
    assert contested["priority"] == pytest.approx(80.8 + 130.0, abs=1e-9)


def test_the_function_keeps_four_decimals_and_counts_routine_against() -> None:
    parts = priority_parts(score=0.123456, claim_type="quote", signals=ROUTINE, outlets=None, days_old=3)
    assert parts["checkworthiness"] == 3.7037  # 30 x 0.123456 = 3.70368
    assert parts["routine"] == -20.0 and parts["source"] == 2.4 and parts["type"] == 3.0 and parts["outlets"] == 1
    assert parts["recency"] == 7.43  # 10 x 0.5 ^ (3 / 7)
    assert parts["priority"] == pytest.approx(3.7037 + 2.4 + 10.8 + 3.0 - 20.0 + 7.43, abs=1e-9)
    # Eight or more outlets give the whole spread; a claim a year old next to nothing of recency.
    wide = priority_parts(score=0.5, claim_type="other", signals={}, outlets=12, days_old=365)
    assert (wide["spread"], wide["recency"], wide["type"], wide["public_interest"], wide["topic"]) == (12.0, 0.0, 0.0, 0.0, "")


def test_the_function_reads_the_stored_weights_and_falls_back_to_the_defaults() -> None:
    RankingWeights.objects.filter(pk=1).update(weights={**DEFAULT_RANKING_WEIGHTS, "checkworthiness": 50.0, "type_numeric": 15.0}, version=4)
    parts = priority_parts(score=0.9, claim_type="numeric", signals=ECONOMY, outlets=2, days_old=7)
    assert (parts["checkworthiness"], parts["type"], parts["weights_version"], parts["priority"]) == (45.0, 15.0, 4, 105.8)
    RankingWeights.objects.all().delete()  # as a test flush leaves it
    parts = priority_parts(score=0.9, claim_type="numeric", signals=ECONOMY, outlets=2, days_old=7)
    assert (parts["weights_version"], parts["priority"]) == (0, 80.8)


def make_claim(n: int, *, score: float, signals: dict[str, Any], claim_type: str = "numeric") -> Claim:
    text = f"Story {n}. The claim number {n} is here."
    article, _ = article_ingest(data=ArticleInput(text=text, outlet=f"Outlet {n}", published_at=NEWEST), batch=None)
    start = text.index("The claim")
    return Claim.objects.create(
        article=article, claim_key=f"{n:040x}", sentence=text[start:], start_offset=start, end_offset=len(text), score=score,
        claim_type=claim_type, rank_signals=signals, priority=0.0,
    )


def queue_order(user) -> list[int]:  # type: ignore[no-untyped-def]
    return [row["id"] for row in queue_page(user=user, values={}, cursor=None, page_size=50).rows]


def test_rerank_writes_the_functions_parts_and_a_second_run_writes_nothing(reviewer) -> None:  # type: ignore[no-untyped-def]
    public = make_claim(1, score=0.5, signals=ECONOMY)
    company = make_claim(2, score=0.99, signals=ROUTINE)
    PriorityBasis.objects.create(weights_version=0)  # as a merge under older weights left it
    assert services.claims_rerank() == 2
    assert PriorityBasis.objects.get().weights_version == 1  # the next merge need not refresh them all
    public.refresh_from_db()
    assert public.priority_parts == {
        "contestability": 0.0, "checkworthiness": 15.0, "public_interest": 14.0, "source": 12.0, "specificity": 10.8, "type": 8.0,
        "routine": 0.0, "spread": 0.0, "outlets": 1, "topic": "economy", "weights_version": 1, "lead_claim_id": public.pk,
    }
    assert public.priority == pytest.approx(59.8, abs=1e-9)  # standing: the queue adds recency as it reads
    assert queue_order(reviewer) == [public.pk, company.pk]  # public interest above routine results
    assert services.claims_rerank() == 0


def post_weights(client: Client, **changes: float) -> Any:
    data = {**DEFAULT_RANKING_WEIGHTS, **changes}
    return client.post(reverse("claims:ranking"), {key: str(value) for key, value in data.items()})


def test_admin_changes_the_weights_audited_and_the_rerank_reorders_the_queue(  # type: ignore[no-untyped-def]
    admin_user, reviewer, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    public = make_claim(1, score=0.5, signals=ECONOMY)
    company = make_claim(2, score=0.99, signals=ROUTINE)
    services.claims_rerank()
    assert queue_order(reviewer) == [public.pk, company.pk]

    client = logged_in(admin_user)
    page = client.get(reverse("claims:ranking"))
    assert page.status_code == 200
    html = page.content.decode()
    assert all(f'name="{field.key}"' in html for field in WEIGHT_FIELDS)
    assert f'href="{reverse("claims:ranking")}"' in html  # the navigation's link, for admins

    enqueued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(ranking_rerank, "apply_async", lambda args, **options: enqueued.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        response = post_weights(client, public_interest=0.0, routine=0.0, checkworthiness=60.0)
    assert response.status_code == 302 and response["Location"] == reverse("claims:ranking")
    weights = RankingWeights.objects.get()
    assert weights.version == 2 and weights.weights["checkworthiness"] == 60.0 and weights.weights["public_interest"] == 0.0
    assert enqueued == [(2,)]  # after the commit, the version only
    event = AuditEvent.objects.get(object_type="ranking_weights")
    assert (event.actor_id, event.verb, event.object_id) == (admin_user.pk, "ranking_weights_set", 1)
    assert event.before == {"weights": DEFAULT_RANKING_WEIGHTS, "version": 1}
    assert event.after == {"weights": weights.weights, "version": 2}

    assert queue_order(reviewer) == [public.pk, company.pk]  # nothing moves before the task runs
    waiting = client.get(reverse("claims:ranking")).content.decode()
    assert "being re-ranked with this version (it is ranked with version 1 until then)" in waiting and 'hx-select="#rerank-status"' in waiting
    ranking_rerank(2)
    done = client.get(reverse("claims:ranking")).content.decode()
    assert "The queue is ranked with this version." in done and "being re-ranked" not in done and "every 2s" not in done
    assert queue_order(reviewer) == [company.pk, public.pk]  # check-worthiness alone now
    company.refresh_from_db()
    assert company.priority_parts["weights_version"] == 2 and company.priority_parts["checkworthiness"] == 59.4
    assert services.claims_rerank() == 0  # a second delivery changes nothing
    assert "checkworthiness 30 → 60" in client.get(reverse("claims:ranking")).content.decode()


def test_the_same_weights_again_change_nothing(admin_user, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks() as callbacks:
        response = post_weights(logged_in(admin_user))
    assert response.status_code == 302 and callbacks == []
    assert RankingWeights.objects.get().version == 1 and not AuditEvent.objects.filter(object_type="ranking_weights").exists()


@pytest.mark.parametrize(
    "changes", [{"checkworthiness": 1000.0}, {"routine": 5.0}, {"recency_half_life_days": 0.0}, {"source": float("nan")}]
)
def test_weights_out_of_range_are_refused(admin_user, changes: dict[str, float]) -> None:  # type: ignore[no-untyped-def]
    response = post_weights(logged_in(admin_user), **changes)
    assert response.status_code == 400
    [key] = changes
    assert key in response.context["form"].errors
    assert RankingWeights.objects.get().weights == DEFAULT_RANKING_WEIGHTS
    assert not AuditEvent.objects.filter(object_type="ranking_weights").exists()


def test_a_missing_weight_is_refused(admin_user) -> None:  # type: ignore[no-untyped-def]
    data = {key: str(value) for key, value in DEFAULT_RANKING_WEIGHTS.items() if key != "spread"}
    response = logged_in(admin_user).post(reverse("claims:ranking"), data)
    assert response.status_code == 400 and "spread" in response.context["form"].errors


def test_the_service_checks_role_and_keys(editor, admin_user) -> None:  # type: ignore[no-untyped-def]
    from django.core.exceptions import PermissionDenied, ValidationError

    with pytest.raises(PermissionDenied):
        services.ranking_weights_set(actor=editor, weights=dict(DEFAULT_RANKING_WEIGHTS))
    with pytest.raises(ValidationError):
        services.ranking_weights_set(actor=admin_user, weights={**DEFAULT_RANKING_WEIGHTS, "bonus": 1.0})
    with pytest.raises(ValidationError):
        services.ranking_weights_set(actor=admin_user, weights={**DEFAULT_RANKING_WEIGHTS, "spread": -1.0})
    assert RankingWeights.objects.get().version == 1


def test_wrong_method_is_refused(admin_user) -> None:  # type: ignore[no-untyped-def]
    assert logged_in(admin_user).put(reverse("claims:ranking")).status_code == 405


@pytest.mark.parametrize("persona", ["reviewer", "editor", "outsider"])
def test_only_admins_may_see_or_set_the_weights(persona: str, request: pytest.FixtureRequest) -> None:
    client = logged_in(request.getfixturevalue(persona))
    assert client.get(reverse("claims:ranking")).status_code == 403
    assert post_weights(client, checkworthiness=60.0).status_code == 403
    assert RankingWeights.objects.get().version == 1
    if persona != "outsider":
        assert f'href="{reverse("claims:ranking")}"' not in client.get(reverse("claims:list")).content.decode()


def test_anonymous_is_sent_to_log_in(client: Client) -> None:
    for response in (client.get(reverse("claims:ranking")), post_weights(client, checkworthiness=60.0)):
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert RankingWeights.objects.get().version == 1


def test_the_claim_page_and_the_queue_show_every_part(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(1, score=0.5, signals=ROUTINE | {"public_interest": 0.7, "topic": "public_money", "routine": 0.5})
    Claim.objects.filter(pk=claim.pk).update(context="The council voted on Tuesday.")
    services.claims_rerank()
    client = logged_in(reviewer)
    page = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    for shown in ("check-worthiness 15", "public interest 14 (public money)", "source 2.4", "specificity 10.8", "type 8",
                  "routine -10", "spread 0 (1 outlet)", "recency 10", "weights v1", "The council voted on Tuesday."):
        assert shown in page
    assert "<strong>50.20</strong>" in page  # 15 + 14 + 2.4 + 10.8 + 8 - 10 + 0 + 10
    # In words: what raises it, largest first, and what holds it back.
    reasons = (
        "Ranked up for: a checkable factual claim (the check-worthiness model) +15.0; on public money +14.0; "
        "specific: figures, names, dates +10.8; new +10.0; its kind of claim +8.0; who says it +2.4. "
        "Held back as routine news (company results, sport, culture) −10.0."
    )
    assert reasons in page
    listing = client.get(reverse("claims:list")).content.decode()
    assert f'title="{reasons}"' in listing
    assert "<strong>50.20</strong>" in listing


def test_every_appearance_of_a_cluster_ranks_by_its_leads_wording(reviewer) -> None:  # type: ignore[no-untyped-def]
    # The same quote worded by two outlets: one wording reads as contestable, the other not.
    strong = make_claim(1, score=0.47, signals={**ECONOMY, "contestability": 0.9})
    weak = make_claim(2, score=0.07, signals={**ECONOMY, "contestability": 0.1})
    join_cluster([strong, weak], "e" * 40)
    services.claims_rerank()
    strong.refresh_from_db()
    weak.refresh_from_db()
    assert ClaimCluster.objects.get(cluster_key="e" * 40).lead_claim_id == strong.pk
    assert weak.priority == strong.priority and weak.priority_parts == strong.priority_parts
    assert strong.priority_parts["contestability"] == 144.0 and strong.priority_parts["lead_claim_id"] == strong.pk
    page = logged_in(reviewer).get(reverse("claims:detail", args=[weak.pk])).content.decode()
    assert f"Ranked as its cluster, by the wording of appearance #{strong.pk}." in page
    # The lead follows the weights: with contestability switched off the higher check-worthiness leads.
    RankingWeights.objects.filter(pk=1).update(weights={**DEFAULT_RANKING_WEIGHTS, "contestability": 0.0}, version=2)
    services.claims_rerank()
    weak.refresh_from_db()
    assert weak.priority_parts["contestability"] == 0.0 and weak.priority_parts["checkworthiness"] == 14.1


@pytest.mark.django_db(transaction=True)
def test_the_rerank_waits_for_a_merge_in_progress() -> None:
    RankingWeights.objects.update_or_create(pk=1, defaults={"weights": DEFAULT_RANKING_WEIGHTS, "version": 1})
    claim = make_claim(1, score=0.5, signals=ECONOMY)
    finished = threading.Event()

    def rerank() -> None:
        try:
            services.claims_rerank()
        finally:
            connection.close()
            finished.set()

    with psycopg.connect(database_url_for_job()) as merge:
        merge.execute("SELECT pg_advisory_xact_lock(%s)", (MERGE_LOCK_ID,))
        thread = threading.Thread(target=rerank)
        thread.start()
        time.sleep(1.0)
        assert not finished.is_set()  # held back by the merge's lock
        claim.refresh_from_db()
        assert claim.priority == 0.0
    assert finished.wait(30)  # the merge committed: the re-rank goes on
    thread.join()
    claim.refresh_from_db()
    assert claim.priority == pytest.approx(59.8, abs=1e-9)


@pytest.mark.django_db
def test_the_weight_migration_moves_an_untouched_contestability_weight_and_leaves_an_admins() -> None:
    from importlib import import_module

    from django.apps import apps

    migration = import_module("factcheck.claims.migrations.0030_contestability_weight")
    stored = RankingWeights.objects.get(pk=1)
    for before, after in ((80.0, DEFAULT_RANKING_WEIGHTS["contestability"]), (55.0, 55.0)):
        RankingWeights.objects.filter(pk=1).update(weights={**stored.weights, "contestability": before}, version=stored.version)
        with connection.schema_editor() as editor:
            migration.forward(apps, editor)
        now = RankingWeights.objects.get(pk=1)
        assert now.weights["contestability"] == after
        assert now.version == stored.version + (1 if before != after else 0)
