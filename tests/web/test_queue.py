"""The triage queue: ranking, filters, keyset pages, row actions, saved views, bulk actions.

Personas: reviewer (triages), editor (also assigns to others), outsider (no role: 403 on
actions, 404 on objects).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from factcheck.accounts.roles import Role
from factcheck.accounts.services import user_create_with_role
from factcheck.articles.models import Article, ImportBatch, Outlet
from factcheck.audit.models import AuditEvent
from factcheck.claims.models import BulkAction, Claim, ClaimCluster, QueueOrderBasis, SavedView
from factcheck.claims.queue import selectors
from factcheck.claims.queue.filters import FILTER_FIELDS, QUEUE_ORDER, claims_filtered, search_for
from factcheck.claims.workflow import selectors as workflow_selectors
from factcheck.factchecks.models import ClaimMatch, FactCheck
from factcheck.runs.models import PipelineRun
from tests.conftest import PERSONA_PASSWORD, queue_order_day
from tests.workflow.factories import set_cluster_state, split_state

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
NEWEST = datetime(2026, 3, 8, 12, tzinfo=UTC)
# user with role (the session is in Redis), claims page, the page's "checked before" matches,
# the filter bar's choices and saved views, the navigation's counts (my claims left, awaiting
# my approval) and the articles' metadata values (cached, keyed by the newest article: read
# again in each test, whose articles are new); the count of the claims matching is its own
# request (views.claim_count); and the organisation's demo banner (cached, read again in each
# test); the walk's parallel workers turned off (factcheck.postgres.base.serial_plans), with
# its savepoint and release in a test's transaction
QUEUE_MAX_QUERIES = 10


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


_article_counter = iter(range(1, 1_000_000))


def make_article(
    *, outlet: str = "MassLive", title: str = "", text: str = "", published_at: datetime | None = None, metadata: dict[str, Any] | None = None
) -> Article:
    n = next(_article_counter)
    text = text or f"Article {n} text."
    return Article.objects.create(
        outlet=Outlet.objects.get_or_create(name=outlet)[0], title=title or f"Article {n}", text=text,
        content_hash=f"{n:064d}", published_at=published_at, metadata=metadata or {},
    )


_claim_counter = iter(range(1, 1_000_000))


def make_claim(article: Article | None = None, **fields: Any) -> Claim:
    n = next(_claim_counter)
    article = article or make_article()
    defaults: dict[str, Any] = {
        "article": article, "claim_key": f"{n:040d}", "sentence": f"Claim number {n} says something.",
        "start_offset": n * 10, "end_offset": n * 10 + 5, "score": 0.5, "priority": 50.0,
    }
    own, state = split_state(fields)
    defaults.update(own)
    return set_cluster_state(Claim.objects.create(**defaults), **state)


def shown_ids(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<tr id="claim-(\d+)"', html)]


@pytest.fixture(autouse=True)
def order_day() -> None:
    """The queue's stored order counts recency back from NEWEST's day (as the beat task would
    have set it that day), so that the tests' fixed dates keep their recency."""
    queue_order_day(NEWEST)


def expected_order(values: dict[str, Any], user) -> list[int]:  # type: ignore[no-untyped-def]
    """The queue's order computed with the ORM (claims_filtered): queue_rank, id; with a search,
    its groups (the phrase matches, the other matches of the claim's own text, the claims
    found through their article) one after the other, each by queue_rank, id. A cluster is one
    row: these tests' clusters are single claims. The default view is the open work."""
    values = selectors.queue_view(values)
    matching = claims_filtered(Claim.objects.all(), values=values, user=user).order_by(*QUEUE_ORDER)
    if (search := search_for(values)) is None:
        return list(matching.values_list("id", flat=True))
    return [pk for group in search.groups for pk in matching.filter(group).values_list("id", flat=True)]


# --- The page ---------------------------------------------------------------------------------


def test_queue_ranks_claims_and_shows_why(reviewer, editor, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    article = make_article(outlet="Boston Globe")
    low = make_claim(article, priority=20.0, sentence="Crime fell 5 percent.", seen_at=NEWEST - timedelta(days=7))
    high = make_claim(
        article, priority=69.5, sentence="ICE detained nearly 1,500 people in May.", claim_type="numeric", speaker="Todd Lyons",
        speaker_title="Acting ICE Director", quantities=[{"text": "nearly 1,500 people", "value": 1500, "unit": "people", "hedge": "approximately-below"}],
        priority_parts={"checkworthiness": 44.5, "type": 15, "spread": 10.0, "outlets": 4},
        cluster_key="c" * 40, assignee=editor, tags=["ice"], seen_at=NEWEST,
    )
    ClaimCluster.objects.update_or_create(cluster_key="c" * 40, defaults=dict(size=6, outlet_count=4))
    client = logged_in(reviewer)
    with django_assert_max_num_queries(QUEUE_MAX_QUERIES):
        response = client.get(reverse("claims:list"))
    assert response.status_code == 200
    html = response.content.decode()
    assert shown_ids(html) == [high.pk, low.pk]
    row = html[html.index(f'id="claim-{high.pk}"') : html.index(f'id="claim-{low.pk}"')]
    # Recency is added as the queue reads: 10 points (the default weight) for the newest claim,
    # half as many a half-life (7 days) before it.
    assert "<strong>79.50</strong>" in row and f'id="claim-{low.pk}"' in html and "<strong>25.00</strong>" in html
    for expected in (
        "cw 45 · type 15 · spread 10 · new 10", "Numeric / statistical", "under 1,500 people",
        "Todd Lyons, Acting ICE Director", "Boston Globe", "4 outlets · 6 appearances", "New", "@eddie-editor", "#ice",
    ):
        assert expected in row, expected
    assert 'data-key="a"' in row and 'data-key="c"' in row and 'data-key="d"' in row and 'data-key="x"' in row
    assert "js/keys.js" in html


def test_queue_query_count_does_not_grow_with_rows(reviewer, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    for n in range(60):
        make_claim(cluster_key=f"{n:040d}", priority=float(n))
        ClaimCluster.objects.update_or_create(cluster_key=f"{n:040d}", defaults=dict(size=2, outlet_count=2))
    client = logged_in(reviewer)
    with django_assert_max_num_queries(QUEUE_MAX_QUERIES):
        html = client.get(reverse("claims:list")).content.decode()
    assert len(shown_ids(html)) == 50


def test_filter_bar_offers_every_outlet_and_assignable_user_as_soon_as_they_exist(reviewer, editor, outsider) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(editor)
    client.get(reverse("claims:list"))
    outlet = Outlet.objects.create(name="Worcester Telegram & Gazette")
    newcomer = user_create_with_role(username="nina-newcomer", role=Role.REVIEWER)[0]
    html = client.get(reverse("claims:list")).content.decode()
    assert f'<option value="{outlet.pk}">Worcester Telegram &amp; Gazette</option>' in html
    filter_bar = html[html.index('name="assignee"') : html.index("</select>", html.index('name="assignee"'))]
    assignees = [(int(pk), name) for pk, name in re.findall(r'<option value="(\d+)">([^<]+)</option>', filter_bar)]
    # The queue's own query for its choices and the selector the claim page uses agree.
    expected = [(user.pk, user.username) for user in workflow_selectors.assignable_users()]
    assert assignees == expected and (newcomer.pk, newcomer.username) in expected
    assert outsider.username not in html  # no role: nobody assigns claims to them
    newcomer.is_active = False
    newcomer.save()
    assert "nina-newcomer" not in client.get(reverse("claims:list")).content.decode()


def test_queue_needs_a_role_and_get(client: Client, reviewer, outsider) -> None:  # type: ignore[no-untyped-def]
    assert client.get(reverse("claims:list")).status_code == 302
    assert logged_in(outsider).get(reverse("claims:list")).status_code == 403
    assert logged_in(reviewer).post(reverse("claims:list")).status_code == 405


def test_htmx_filter_change_gets_only_the_results(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(claim_type="causal")
    make_claim(claim_type="quote")
    params = {"type": "causal", "speaker": "", "q": " "}
    response = logged_in(reviewer).get(reverse("claims:list"), params, HTTP_HX_TARGET="queue-results", **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html and 'id="filters"' not in html
    assert response["HX-Push-Url"] == "/claims/?type=causal"
    assert shown_ids(html) == [claim.pk]
    # The bulk form and the save form carry the filters that are now in the URL.
    assert 'name="filters" value="type=causal"' in html and 'name="query" value="type=causal"' in html


# --- Filters, each one ---------------------------------------------------------------------------


@pytest.fixture
def filter_world(reviewer, editor) -> dict[str, Claim]:  # type: ignore[no-untyped-def]
    globe = make_article(
        outlet="Boston Globe", title="Sanctuary policy", published_at=datetime(2025, 6, 2, tzinfo=UTC), metadata={"category": "politics", "year": 2025}
    )
    herald = make_article(
        outlet="Boston Herald", title="Budget hearing", text="The mayor defended the budget.", published_at=datetime(2025, 6, 20, tzinfo=UTC),
        metadata={"category": "business", "year": "2024"},
    )
    return {
        "numeric": make_claim(globe, sentence="ICE detained 1,500 people in May.", claim_type="numeric", speaker="Todd Lyons", score=0.9,
                              quantities=[{"text": "1,500 people", "value": 1500, "unit": "people", "hedge": "exact"}], assignee=reviewer, priority=90),
        "quote": make_claim(globe, sentence="We will not back down.", claim_type="quote", speaker="Michelle Wu", score=0.3, status="check",
                            tags=["follow-up"], priority=80),
        "causal": make_claim(herald, sentence="The cuts caused the closures.", claim_type="causal", speaker="", score=0.6, status="returned",
                             assignee=editor, priority=70),
    }


@pytest.mark.parametrize(
    "params,expected",
    [
        ({"status": ["check"]}, {"quote"}),
        ({"status": ["new", "returned"]}, {"numeric", "causal"}),
        ({"type": ["numeric", "causal"]}, {"numeric", "causal"}),
        ({"speaker": "lyons"}, {"numeric"}),
        ({"score_min": "0.5"}, {"numeric", "causal"}),
        ({"score_max": "0.5"}, {"quote"}),
        ({"assignee": "mine"}, {"numeric"}),
        ({"assignee": "unassigned"}, {"quote"}),
        ({"date_from": "2025-06-10"}, {"causal"}),
        ({"date_to": "2025-06-10"}, {"numeric", "quote"}),
        ({"has_number": "yes"}, {"numeric"}),
        ({"has_number": "no"}, {"quote", "causal"}),
        ({"tag": "follow-up"}, {"quote"}),
        ({"article_title": "budget"}, {"causal"}),
        ({"article_title": "Sanctuary POL"}, {"numeric", "quote"}),
        ({"meta": "category:politics"}, {"numeric", "quote"}),
        ({"meta": ["category:politics", "category:business"]}, {"numeric", "quote", "causal"}),
        ({"meta": ["category:politics", "year:2024"]}, set()),  # keys must all match
        ({"meta": "year:2025"}, {"numeric", "quote"}),  # a JSON number, asked for as text
        ({"meta": "year:2024"}, {"causal"}),  # a CSV column's text
        ({"meta": "category:sport"}, set()),
        ({"q": "detained"}, {"numeric"}),
        ({"q": "budget"}, set()),  # in the article's text only: not a match of the claim's own text
        ({"q": "budget", "in_article": "yes"}, {"causal"}),  # ... unless the whole article is searched
        ({"q": '"back down" -cuts'}, {"quote"}),
    ],
)
def test_each_filter(reviewer, filter_world: dict[str, Claim], params: dict[str, Any], expected: set[str]) -> None:  # type: ignore[no-untyped-def]
    html = logged_in(reviewer).get(reverse("claims:list"), params).content.decode()
    by_pk = {claim.pk: name for name, claim in filter_world.items()}
    assert {by_pk[pk] for pk in shown_ids(html)} == expected


def test_a_matched_row_shows_checked_before_and_the_filter_keeps_or_drops_it(reviewer, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    matched, plain, rejected, unlikely = (make_claim(priority=p) for p in (90.0, 80.0, 70.0, 60.0))
    snopes = FactCheck.objects.create(
        claim="ICE detained 1,500.", publisher="Snopes", rating_text="Mostly False", published_on=datetime(2025, 6, 3).date(), external_id="s1"
    )
    politifact = FactCheck.objects.create(claim="Another.", publisher="PolitiFact", external_id="p1")
    # A confirmed match is shown before a better-ranked suggestion; a rejected one never.
    ClaimMatch.objects.create(claim=matched, factcheck=politifact, score=0.95, rank=1)
    ClaimMatch.objects.create(claim=matched, factcheck=snopes, score=0.9, rank=2, status=ClaimMatch.Status.CONFIRMED)
    ClaimMatch.objects.create(claim=rejected, factcheck=snopes, score=0.8, status=ClaimMatch.Status.REJECTED)
    # A suggestion the matcher finds unlikely is listed on the claim page, not as "Checked before".
    ClaimMatch.objects.create(claim=unlikely, factcheck=snopes, score=0.02, rank=1)
    client = logged_in(reviewer)
    with django_assert_max_num_queries(QUEUE_MAX_QUERIES):
        html = client.get(reverse("claims:list")).content.decode()
    assert shown_ids(html) == [matched.pk, plain.pk, rejected.pk, unlikely.pk]
    row = html[html.index(f'id="claim-{matched.pk}"') : html.index(f'id="claim-{plain.pk}"')]
    assert "Checked before (confirmed): Snopes, Mostly False, 3 Jun 2025" in row
    assert html.count("class=\"checked-before") == 1
    assert 'name="checked_before"' in html
    assert shown_ids(client.get(reverse("claims:list"), {"checked_before": "yes"}).content.decode()) == [matched.pk]
    assert shown_ids(client.get(reverse("claims:list"), {"checked_before": "no"}).content.decode()) == [plain.pk, rejected.pk, unlikely.pk]
    # The row swapped in after an action shows it too.
    response = client.post(reverse("claims:row_action", args=[matched.pk]), {"action": "assign_me", "version": matched.cluster.version}, **HTMX)
    assert response.status_code == 200 and "Checked before (confirmed): Snopes, Mostly False, 3 Jun 2025" in response.content.decode()


def test_the_filters_are_each_users_and_follow_the_settings(reviewer, editor, settings) -> None:  # type: ignore[no-untyped-def]
    """The same view asked for again by two users is each one's own ("mine"), and a filter
    reads the settings it depends on at each request."""
    mine, theirs = make_claim(priority=90.0, assignee=reviewer), make_claim(priority=80.0, assignee=editor)
    reviewers_view, editors_view = logged_in(reviewer), logged_in(editor)
    for _ in range(2):
        assert shown_ids(reviewers_view.get(reverse("claims:list"), {"assignee": "mine"}).content.decode()) == [mine.pk]
        assert shown_ids(editors_view.get(reverse("claims:list"), {"assignee": "mine"}).content.decode()) == [theirs.pk]
    check = FactCheck.objects.create(claim="A check.", publisher="Snopes", external_id="s-kept")
    ClaimMatch.objects.create(claim=theirs, factcheck=check, score=0.02, rank=1)
    assert shown_ids(reviewers_view.get(reverse("claims:list"), {"checked_before": "yes"}).content.decode()) == []
    assert 'class="checked-before' not in reviewers_view.get(reverse("claims:list")).content.decode()
    settings.FACTCHECK_CHECKED_BEFORE_MIN_SCORE = 0.01
    assert shown_ids(reviewers_view.get(reverse("claims:list"), {"checked_before": "yes"}).content.decode()) == [theirs.pk]
    # The badge too (its statement is resolved once a process, for each value of the setting).
    assert reviewers_view.get(reverse("claims:list")).content.decode().count('class="checked-before') == 1


def test_outlet_article_and_assignee_id_filters(reviewer, editor, filter_world: dict[str, Claim]) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    causal = filter_world["causal"]
    assert shown_ids(client.get(reverse("claims:list"), {"outlet": causal.article.outlet_id}).content.decode()) == [causal.pk]
    assert shown_ids(client.get(reverse("claims:list"), {"article": causal.article_id}).content.decode()) == [causal.pk]
    assert shown_ids(client.get(reverse("claims:list"), {"assignee": editor.pk}).content.decode()) == [causal.pk]


def test_invalid_filters_are_reported_and_ignored(reviewer, filter_world: dict[str, Claim]) -> None:  # type: ignore[no-untyped-def]
    response = logged_in(reviewer).get(reverse("claims:list"), {"score_min": "2", "date_from": "yesterday", "assignee": "bob", "type": "causal"})
    html = response.content.decode()
    assert response.status_code == 200
    assert shown_ids(html) == [filter_world["causal"].pk]  # the valid filter still applies
    assert "Ignored, not valid" in html
    assert "Ensure this value is less than or equal to 1" in html and "Enter a valid date" in html
    assert "Assignee must be" in html


def test_the_queue_page_lists_what_the_filtered_queryset_does(reviewer, editor, filter_world: dict[str, Claim]) -> None:  # type: ignore[no-untyped-def]
    """The queue page (one row per cluster, a search's groups one after the other, keyset
    pages) against the plain queryset the API's other lists and the CSV export use
    (claims_filtered, in queue order): every filter alone and with each other one, first
    pages and pages after a cursor."""
    undated = make_article(outlet="Boston Globe", text="Rivers flooded the valley.")  # no date: its import date counts
    Article.objects.filter(pk=undated.pk).update(created_at=datetime(2025, 6, 15, 12, tzinfo=UTC))
    homes = make_claim(undated, sentence="50% of the 1_000 homes flooded.", speaker="Lyons_%", claim_type="numeric", score=0.7, priority=90,
                       quantities=[{"text": "50%", "value": 50, "unit": "percent", "hedge": "exact"}], tags=["follow-up"], assignee=reviewer)
    check = FactCheck.objects.create(claim="ICE detained 1,500.", publisher="Snopes", external_id="s1")
    ClaimMatch.objects.create(claim=filter_world["numeric"], factcheck=check, score=0.9)
    ClaimMatch.objects.create(claim=homes, factcheck=check, score=0.4, status=ClaimMatch.Status.REJECTED)
    # "lyons_%" must not match this one: the %, _ of a speaker filter are literal.
    make_claim(undated, sentence="The valley flooded again.", speaker="Ed Lyons Jr", claim_type="causal", score=0.55, priority=65,
               tags=["follow-up", "x"])
    globe = filter_world["numeric"].article
    batch = ImportBatch.objects.create(source="june.csv")
    run = PipelineRun.objects.create(import_batch=batch)
    Claim.objects.filter(pk__in=[homes.pk, filter_world["numeric"].pk]).update(first_run=run)
    examples: dict[str, Any] = {
        "status": ["new", "check"], "type": ["numeric", "causal"], "speaker": "lyons_%", "outlet": globe.outlet_id,
        "article": globe.pk, "score_min": 0.5, "score_max": 0.6, "assignee": "mine", "date_from": datetime(2025, 6, 10).date(),
        "date_to": datetime(2025, 6, 15).date(), "has_number": "yes", "checked_before": "yes", "tag": " follow-up ", "q": "flooded OR detained",
        "run": run.pk, "import": batch.pk,
        "in_article": "yes",
        "article_title": "policy", "meta": ["category:politics"],
    }
    variants = {
        "assignee": ["unassigned", str(editor.pk)], "has_number": ["no"], "checked_before": ["no"], "speaker": ["LYONS"], "article_title": ["BUDGET"],
        "meta": [["category:business", "category:politics"], ["year:2025"], ["category:politics", "year:2025"]],
    }
    assert set(examples) == set(FILTER_FIELDS)  # a new filter needs its example here
    single = [{name: value} for name, value in examples.items()] + [{name: v} for name, vs in variants.items() for v in vs]
    single.append({"q": examples["q"], "in_article": "yes"})
    pairs = [{**a, **b} for n, a in enumerate(single) for b in single[n + 1 :] if set(a).isdisjoint(b)]
    matched = 0
    for values in [{}, *single, *pairs]:
        expected = expected_order(values, reviewer)
        page = selectors.queue_page(user=reviewer, values=values, cursor=None, page_size=2)
        ids = [row["id"] for row in page.rows]
        if page.next_cursor:
            ids += [row["id"] for row in selectors.queue_page(user=reviewer, values=values, cursor=page.next_cursor, page_size=50).rows]
        assert ids == expected, values
        matched += bool(expected)
    assert matched > len(single)  # most cases select something


# --- Keyset pages -----------------------------------------------------------------------------


def test_keyset_pages_have_no_duplicates_or_gaps_with_tied_priorities(reviewer, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_QUEUE_PAGE_SIZE = 7
    article = make_article()
    claims = [make_claim(article, priority=float(n % 3) * 10) for n in range(40)]  # three priorities, ~13 claims each
    expected = [c.pk for c in sorted(claims, key=lambda c: (c.priority, c.pk), reverse=True)]
    client = logged_in(reviewer)
    seen: list[int] = []
    url = reverse("claims:list")
    pages = 0
    while url:
        html = client.get(url).content.decode()
        seen += shown_ids(html)
        pages += 1
        match = re.search(r'<a class="button" href="(\?[^"]*after=[^"]+)"', html)
        url = reverse("claims:list") + match.group(1).replace("&amp;", "&") if match else ""
        if pages > 1:
            assert "« First" in html
    assert seen == expected
    assert pages == 6


def test_keyset_pages_keep_the_filters_and_survive_a_bad_cursor(reviewer, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_QUEUE_PAGE_SIZE = 2
    numeric = [make_claim(claim_type="numeric", priority=float(n)) for n in range(3)]
    make_claim(claim_type="quote", priority=1.5)
    client = logged_in(reviewer)
    html = client.get(reverse("claims:list"), {"type": "numeric"}).content.decode()
    assert shown_ids(html) == [numeric[2].pk, numeric[1].pk]
    next_href = re.search(r'href="\?(type=numeric&amp;after=[^"]+)"', html).group(1).replace("&amp;", "&")
    assert shown_ids(client.get(reverse("claims:list") + "?" + next_href).content.decode()) == [numeric[0].pk]
    # A malformed cursor starts the queue over rather than failing.
    assert shown_ids(client.get(reverse("claims:list"), {"type": "numeric", "after": "%%%"}).content.decode()) == [numeric[2].pk, numeric[1].pk]


def test_search_pages_walk_every_match_once_with_the_other_filters(reviewer, settings, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    """Search pages take their ids from the two indexed lookups (sentence, article text) and
    must list exactly what the plain filter would, in the search's order (the claims that
    match themselves, then those found through their article), across pages with ties."""
    settings.FACTCHECK_QUEUE_PAGE_SIZE = 4
    about_floods = make_article(text="Rivers flooded the valley overnight.")
    elsewhere = make_article(text="Nothing relevant here.")
    expected_claims = [
        *(make_claim(about_floods, priority=float(n % 2) * 10, claim_type="numeric") for n in range(5)),  # via the article
        *(make_claim(elsewhere, sentence=f"The flood cost {n} million.", priority=float(n % 3) * 10, claim_type="numeric") for n in range(6)),
    ]
    make_claim(elsewhere, sentence="The flood was a hoax.", claim_type="quote")  # another type
    make_claim(elsewhere, sentence="Dry weather all week.", claim_type="numeric")  # no match
    by_queue_order = sorted(expected_claims, key=lambda c: (c.priority, c.pk), reverse=True)
    # The sentences differ by a number only: one relevance, so queue order within each group.
    expected = [c.pk for c in by_queue_order if "flood" in c.sentence] + [c.pk for c in by_queue_order if "flood" not in c.sentence]
    assert expected == expected_order({"q": "flood", "type": ["numeric"], "in_article": "yes"}, reviewer)
    client = logged_in(reviewer)
    seen: list[int] = []
    url = reverse("claims:list") + "?q=flood&type=numeric&in_article=yes"
    while url:
        # The page's queries, and the search's: whether the phrase differs, its first group,
        # its second (once the first is exhausted), and the highlights.
        with django_assert_max_num_queries(QUEUE_MAX_QUERIES + 4):
            html = client.get(url).content.decode()
        seen += shown_ids(html)
        match = re.search(r'<a class="button" href="(\?[^"]*after=[^"]+)"', html)
        url = reverse("claims:list") + match.group(1).replace("&amp;", "&") if match else ""
    assert seen == expected
    assert shown_ids(client.get(reverse("claims:list"), {"q": "volcano"}).content.decode()) == []


# --- Row actions --------------------------------------------------------------------------------


def triage(client: Client, claim: Claim, *, htmx: bool = True, **data: Any) -> Any:
    extra = HTMX if htmx else {}
    return client.post(reverse("claims:row_action", args=[claim.pk]), {"version": claim.cluster.version, "next": "/claims/?type=numeric", **data}, **extra)


def test_assign_to_me_swaps_the_row_and_writes_the_audit_row(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    response = triage(logged_in(reviewer), claim, action="assign_me")
    html = response.content.decode()
    assert response.status_code == 200 and html.startswith(f'<tr id="claim-{claim.pk}"') and "@rita-reviewer" in html
    assert "Release" in html
    claim.refresh_from_db()
    assert claim.cluster.assignee == reviewer and claim.cluster.version == 2
    assert AuditEvent.objects.filter(object_type="claim", object_id=claim.pk, actor=reviewer).count() == 1


def test_check_and_dismiss_without_javascript_redirect_back(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    client = logged_in(reviewer)
    response = triage(client, claim, htmx=False, action="check")
    assert response.status_code == 302 and response["Location"] == "/claims/?type=numeric"
    claim.refresh_from_db()
    assert claim.cluster.status == "check"
    response = triage(client, claim, htmx=False, action="dismiss", reason="Opinion, not a fact")
    assert response.status_code == 302
    claim.refresh_from_db()
    assert (claim.cluster.status, claim.cluster.dismiss_reason) == ("dismissed", "Opinion, not a fact")
    assert AuditEvent.objects.filter(object_type="claim", object_id=claim.pk).count() == 2


def test_dismiss_needs_a_reason(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    response = triage(logged_in(reviewer), claim, action="dismiss", reason="  ")
    assert response.status_code == 422 and "Say why it is dismissed." in response.content.decode()
    claim.refresh_from_db()
    assert claim.cluster.status == "new" and not AuditEvent.objects.exists()


def test_stale_version_and_held_claim_are_conflicts(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    client = logged_in(reviewer)
    stale = Claim.objects.select_related("cluster").get(pk=claim.pk)
    triage(client, claim, action="check")
    response = triage(client, stale, action="assign_me")  # carries version 1; the claim is at 2
    assert response.status_code == 409 and "changed this claim" in response.content.decode()
    ClaimCluster.objects.filter(appearances=claim).update(assignee=editor)
    claim.refresh_from_db()
    response = triage(client, claim, action="assign_me")
    assert response.status_code == 409 and "eddie-editor" in response.content.decode()
    claim.refresh_from_db()
    assert claim.cluster.assignee == editor


def test_transition_not_allowed_is_shown_in_the_row(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim(status="approved")
    response = triage(logged_in(reviewer), claim, action="check")
    assert response.status_code == 409 and 'class="row-error"' in response.content.decode()
    claim.refresh_from_db()
    assert claim.cluster.status == "approved"


def test_row_action_refuses_outsider_get_and_unknown_claim(reviewer, outsider) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    assert triage(logged_in(outsider), claim, action="check").status_code == 403
    assert logged_in(reviewer).get(reverse("claims:row_action", args=[claim.pk])).status_code == 405
    assert logged_in(reviewer).post(reverse("claims:row_action", args=[claim.pk + 999]), {"action": "check"}).status_code == 404
    claim.refresh_from_db()
    assert claim.cluster.status == "new"


def test_next_must_stay_on_this_site(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    response = logged_in(reviewer).post(reverse("claims:row_action", args=[claim.pk]), {"action": "check", "next": "https://evil.example/"})
    assert response["Location"] == reverse("claims:list")


# --- Saved views ---------------------------------------------------------------------------------


def test_saved_view_create_open_list_delete(reviewer) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    response = client.post(reverse("claims:view_create"), {"name": "Numbers to check", "query": "type=numeric&status=new&score_min=zzz&bogus=1"})
    view = SavedView.objects.get(user=reviewer)
    assert view.name == "Numbers to check"
    assert view.query == "status=new&type=numeric"  # canonical: valid filters only
    assert response.status_code == 302 and response["Location"] == "/claims/?status=new&type=numeric"
    page = client.get(reverse("claims:list")).content.decode()
    assert "Numbers to check" in page and reverse("claims:view_open", args=[view.pk]) in page
    assert client.get(reverse("claims:view_open", args=[view.pk]))["Location"] == "/claims/?status=new&type=numeric"
    # Saving under the same name replaces it.
    client.post(reverse("claims:view_create"), {"name": "Numbers to check", "query": "type=causal"})
    assert list(SavedView.objects.filter(user=reviewer).values_list("query", flat=True)) == ["type=causal"]
    response = client.post(reverse("claims:view_delete", args=[view.pk]), {"next": "/claims/"})
    assert response.status_code == 302 and not SavedView.objects.exists()


def test_saved_views_are_private(reviewer, editor, outsider) -> None:  # type: ignore[no-untyped-def]
    view = SavedView.objects.create(user=editor, name="Editor's", query="status=check")
    client = logged_in(reviewer)
    assert client.get(reverse("claims:view_open", args=[view.pk])).status_code == 404
    assert client.post(reverse("claims:view_delete", args=[view.pk])).status_code == 404
    assert "Editor&#x27;s" not in client.get(reverse("claims:list")).content.decode()
    assert logged_in(outsider).post(reverse("claims:view_create"), {"name": "x", "query": ""}).status_code == 403
    assert client.get(reverse("claims:view_create")).status_code == 405
    assert client.get(reverse("claims:view_delete", args=[view.pk])).status_code == 405
    assert SavedView.objects.filter(pk=view.pk).exists()


def test_saved_view_needs_a_name(reviewer) -> None:  # type: ignore[no-untyped-def]
    response = logged_in(reviewer).post(reverse("claims:view_create"), {"name": "  ", "query": "type=quote"})
    assert response.status_code == 302 and not SavedView.objects.exists()


# --- Bulk actions, inline ------------------------------------------------------------------------


def test_bulk_dismiss_selection_asks_first_then_runs_inline(reviewer) -> None:  # type: ignore[no-untyped-def]
    new, check, approved = make_claim(), make_claim(status="check"), make_claim(status="approved")
    client = logged_in(reviewer)
    data = {"action": "dismiss", "scope": "selected", "ids": [new.pk, check.pk, approved.pk], "reason": "Duplicate of an older check", "filters": "status=new"}
    confirm = client.post(reverse("claims:bulk"), data)
    html = confirm.content.decode()
    assert confirm.status_code == 200 and "Dismiss 3 claims?" in html and 'name="confirm" value="1"' in html
    assert Claim.objects.filter(cluster__status="dismissed").count() == 0  # nothing happens before the confirmation
    response = client.post(reverse("claims:bulk"), {**data, "confirm": "1"})
    assert response.status_code == 302 and response["Location"] == "/claims/?status=new"
    assert set(Claim.objects.filter(cluster__status="dismissed").values_list("pk", flat=True)) == {new.pk, check.pk}
    approved.refresh_from_db()
    assert approved.cluster.status == "approved"  # not allowed: skipped, not a failure
    assert AuditEvent.objects.filter(verb__contains="dismiss").count() == 2
    assert "2 claims done, 1 skipped" in client.get(reverse("claims:list")).content.decode()


def test_bulk_on_the_filtered_set_sets_status_and_tags(reviewer) -> None:  # type: ignore[no-untyped-def]
    numeric = [make_claim(claim_type="numeric") for _ in range(3)]
    other = make_claim(claim_type="quote")
    client = logged_in(reviewer)
    data = {"action": "status", "scope": "filtered", "status": "check", "filters": "type=numeric"}
    assert "Set status 3 claims?" in client.post(reverse("claims:bulk"), data).content.decode()
    client.post(reverse("claims:bulk"), {**data, "confirm": "1"})
    assert set(Claim.objects.filter(cluster__status="check").values_list("pk", flat=True)) == {c.pk for c in numeric}
    client.post(reverse("claims:bulk"), {"action": "tag", "scope": "filtered", "tag_add": "Budget, numbers", "filters": "type=numeric", "confirm": "1"})
    assert all(Claim.objects.get(pk=c.pk).cluster.tags == ["budget", "numbers"] for c in numeric)
    other.refresh_from_db()
    assert other.cluster.status == "new" and other.cluster.tags == []


def test_bulk_assign_reviewer_to_self_editor_to_others(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    a, b = make_claim(), make_claim()
    reviewer_client = logged_in(reviewer)
    data = {"action": "assign", "scope": "selected", "ids": [a.pk, b.pk], "confirm": "1"}
    assert reviewer_client.post(reverse("claims:bulk"), {**data, "assignee": str(editor.pk)}).status_code == 403
    assert not Claim.objects.filter(cluster__assignee__isnull=False).exists()
    reviewer_client.post(reverse("claims:bulk"), {**data, "assignee": "me"})
    assert set(Claim.objects.filter(cluster__assignee=reviewer).values_list("pk", flat=True)) == {a.pk, b.pk}
    # An editor reassigns claims someone holds.
    logged_in(editor).post(reverse("claims:bulk"), {**data, "assignee": str(editor.pk)})
    assert set(Claim.objects.filter(cluster__assignee=editor).values_list("pk", flat=True)) == {a.pk, b.pk}
    assert AuditEvent.objects.filter(verb__contains="assign").count() == 4


def test_bulk_refuses_outsider_get_and_incomplete_forms(reviewer, outsider) -> None:  # type: ignore[no-untyped-def]
    claim = make_claim()
    data = {"action": "dismiss", "scope": "selected", "ids": [claim.pk], "reason": "x", "confirm": "1"}
    assert logged_in(outsider).post(reverse("claims:bulk"), data).status_code == 403
    client = logged_in(reviewer)
    assert client.get(reverse("claims:bulk")).status_code == 405
    response = client.post(reverse("claims:bulk"), {**data, "reason": ""})
    assert response.status_code == 400 and "Say why they are dismissed." in response.content.decode()
    response = client.post(reverse("claims:bulk"), {"action": "dismiss", "scope": "selected", "reason": "x"})
    assert response.status_code == 400 and "Select some claims first" in response.content.decode()
    claim.refresh_from_db()
    assert claim.cluster.status == "new" and not AuditEvent.objects.exists()


def test_bulk_action_progress_is_its_owners(reviewer, editor, outsider) -> None:  # type: ignore[no-untyped-def]
    bulk = BulkAction.objects.create(user=editor, action="dismiss", params={"reason": "x"}, claim_ids=[1, 2], total=2, done=1)
    assert logged_in(reviewer).get(reverse("claims:bulk_detail", args=[bulk.pk])).status_code == 404
    assert logged_in(outsider).get(reverse("claims:bulk_detail", args=[bulk.pk])).status_code == 403
    client = logged_in(editor)
    page = client.get(reverse("claims:bulk_detail", args=[bulk.pk])).content.decode()
    assert "<html" in page and 'hx-trigger="every 1s"' in page
    partial = client.get(reverse("claims:bulk_detail", args=[bulk.pk]), **HTMX).content.decode()
    assert "<html" not in partial and '<b id="bulk-processed">1</b> of <b>2</b>' in partial


# --- The order: standing priority plus the recency of the claim's day, stored -----------------

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def recency_points(days_old: int) -> float:
    """The default weights' recency (10 points, halving every 7 days), to 4 decimals."""
    return round(10.0 * 0.5 ** (max(days_old, 0) / 7.0) * 10000) / 10000


def day_of(moment: datetime) -> int:
    return (moment - EPOCH).days


def order_by_total(claims: list[Claim], *, day: int | None = None) -> list[int]:
    """Queue order computed here: recency counts back, in whole UTC days, from the order's day
    (NEWEST's, order_day, unless given); a claim with no seen_at has the whole weight."""
    day = day_of(NEWEST) if day is None else day

    def total(claim: Claim) -> float:
        return claim.priority + recency_points(day - day_of(claim.seen_at) if claim.seen_at else 0)

    return [claim.pk for claim in sorted(claims, key=lambda claim: (total(claim), claim.pk), reverse=True)]


def walk(reviewer, values: dict[str, Any], page_size: int) -> list[int]:  # type: ignore[no-untyped-def]
    seen: list[int] = []
    cursor = None
    while True:
        page = selectors.queue_page(user=reviewer, values=values, cursor=cursor, page_size=page_size)
        seen += [row["id"] for row in page.rows]
        if not (cursor := page.next_cursor):
            return seen


@pytest.fixture
def crossing() -> list[Claim]:
    """Claims whose totals cross their standing order: a newer claim outranks an older one
    that stands higher (45 + 10 over 50 + 0.5), and totals tie across standing priorities
    (40 + 10 = 45 + 5 = 50), each pair twice, so that pages split ties."""
    import random

    combos = [(priority, days) for priority in (30.0, 35.0, 40.0, 45.0, 50.0) for days in (0, 7, 14, 30, 90)]
    combos += combos[:12]
    random.Random(3).shuffle(combos)
    about_floods = make_article(text="Rivers flooded the valley overnight.")
    claims = []
    for n, (priority, days) in enumerate(combos):
        article = about_floods if n % 5 == 0 else None
        sentence = f"The flood cost {n} million." if n % 3 == 0 else f"Claim {n} is about taxes."
        claims.append(make_claim(article, priority=priority, seen_at=NEWEST - timedelta(days=days), sentence=sentence,
                                 claim_type="numeric" if n % 2 else "quote"))
    return claims


def test_recency_reorders_the_queue_and_pages_walk_it_exactly(reviewer, settings, crossing: list[Claim]) -> None:  # type: ignore[no-untyped-def]
    expected = order_by_total(crossing)
    newer = next(c for c in crossing if (c.priority, c.seen_at) == (45.0, NEWEST))
    older = next(c for c in crossing if (c.priority, c.seen_at) == (50.0, NEWEST - timedelta(days=30)))
    assert expected.index(newer.pk) < expected.index(older.pk)  # the test's own premise: totals cross
    settings.FACTCHECK_QUEUE_PAGE_SIZE = 4
    client = logged_in(reviewer)
    seen: list[int] = []
    url = reverse("claims:list")
    while url:
        html = client.get(url).content.decode()
        seen += shown_ids(html)
        match = re.search(r'<a class="button" href="(\?[^"]*after=[^"]+)"', html)
        url = reverse("claims:list") + match.group(1).replace("&amp;", "&") if match else ""
    assert seen == expected
    for size in (1, 3, 7, 50):
        assert walk(reviewer, {}, size) == expected, size


def test_recency_order_holds_with_a_filter_and_a_search(reviewer, crossing: list[Claim]) -> None:  # type: ignore[no-untyped-def]
    numeric = order_by_total([c for c in crossing if c.claim_type == "numeric"])
    # A search: the claims that say "flood" (one relevance: queue order), then the others of
    # the article about floods.
    floods = order_by_total([c for c in crossing if "flood" in c.sentence])
    floods += order_by_total([c for c in crossing if "flood" not in c.sentence and "flooded" in c.article.text])
    both = [pk for pk in floods if pk in set(numeric)]
    assert 0 < len(both) < len(floods) < len(crossing)
    for size in (2, 5):
        assert walk(reviewer, {"type": ["numeric"]}, size) == numeric
        assert walk(reviewer, {"q": "flood", "in_article": "yes"}, size) == floods
        assert walk(reviewer, {"q": "flood", "type": ["numeric"], "in_article": "yes"}, size) == both
        assert walk(reviewer, {"q": "flood"}, size) == [pk for pk in floods if "flood" in Claim.objects.get(pk=pk).sentence]


def test_the_order_moves_when_the_day_turns(reviewer, crossing: list[Claim]) -> None:  # type: ignore[no-untyped-def]
    """The stored order counts recency back from its day: the beat task's refresh moves it to
    today (the claims' recency decays, so the order changes where totals crossed), writes only
    the ranks that differ, and a second refresh the same day writes nothing."""
    from factcheck.claims import tasks

    assert walk(reviewer, {}, 5) == order_by_total(crossing)
    today = day_of(datetime.now(UTC))
    later = order_by_total(crossing, day=today)
    assert later != order_by_total(crossing)  # the test's own premise: the day moves the order
    tasks.queue_order_refresh()
    basis = QueueOrderBasis.objects.get()
    assert (basis.day, basis.weight, basis.half_life_days) == (today, 10.0, 7.0)
    assert walk(reviewer, {}, 5) == later
    from factcheck.claims.ranking.services import queue_order_refresh

    assert queue_order_refresh() == 0  # the same day again: nothing to write
    # A claim written after the refresh is ranked against the same day by PostgreSQL itself.
    fresh = make_claim(priority=40.0, seen_at=datetime.now(UTC))
    fresh.refresh_from_db()
    assert fresh.queue_rank == 50.0
    Claim.objects.filter(pk=fresh.pk).update(priority=41.5)
    fresh.refresh_from_db()
    assert fresh.queue_rank == 51.5


def test_a_refresh_that_fails_leaves_the_old_order_and_is_done_again(reviewer, crossing: list[Claim]) -> None:  # type: ignore[no-untyped-def]
    """The basis and the ranks move in one transaction: a refresh that fails half way (the
    database gone during the rewrite) leaves both as they were, and the next one does it all."""
    from django.db import OperationalError, connection

    from factcheck.claims.ranking.services import QUEUE_ORDER_RANKS_SQL, queue_order_refresh

    before = walk(reviewer, {}, 50)

    def fail_the_rewrite(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if sql == QUEUE_ORDER_RANKS_SQL:
            raise OperationalError("connection lost")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(fail_the_rewrite), pytest.raises(OperationalError):
        queue_order_refresh()
    assert QueueOrderBasis.objects.get().day == day_of(NEWEST)
    assert walk(reviewer, {}, 50) == before
    assert queue_order_refresh() > 0
    assert walk(reviewer, {}, 50) == order_by_total(crossing, day=day_of(datetime.now(UTC)))


def test_a_change_of_the_recency_weights_moves_the_order(reviewer, crossing: list[Claim]) -> None:  # type: ignore[no-untyped-def]
    """The recency weight and half-life are in the stored order: the re-rank after a change
    rewrites it (no standing priority moved)."""
    from factcheck.claims.models import RankingWeights
    from factcheck.claims.ranking.services import claims_rerank

    RankingWeights.objects.update_or_create(id=1, defaults={"weights": {"recency": 0.0, "recency_half_life_days": 7.0}})
    claims_rerank()
    expected = [c.pk for c in sorted(crossing, key=lambda c: (Claim.objects.get(pk=c.pk).priority, c.pk), reverse=True)]
    assert walk(reviewer, {}, 6) == expected


def test_keyset_pages_stay_stable_when_claims_move_between_pages(reviewer) -> None:  # type: ignore[no-untyped-def]
    """A page after a cursor continues from where the last page ended, whatever happens above
    it: a claim added or re-ranked above the cursor is not shown again, none below is skipped."""
    claims = [make_claim(priority=float(n % 4) * 10, seen_at=NEWEST) for n in range(30)]
    first = selectors.queue_page(user=reviewer, values={}, cursor=None, page_size=10)
    make_claim(priority=99.0, seen_at=NEWEST)  # lands on the first page
    Claim.objects.filter(pk=first.rows[-1]["id"]).update(priority=95.0)  # a shown claim moves up
    rest = walk_from(reviewer, first.next_cursor, page_size=7)
    expected = order_by_total(claims)
    assert [row["id"] for row in first.rows] + rest == expected


def walk_from(reviewer, cursor: str | None, *, page_size: int) -> list[int]:  # type: ignore[no-untyped-def]
    seen: list[int] = []
    while cursor:
        page = selectors.queue_page(user=reviewer, values={}, cursor=cursor, page_size=page_size)
        seen += [row["id"] for row in page.rows]
        cursor = page.next_cursor
    return seen


def test_the_default_view_is_the_work_still_to_do(reviewer) -> None:  # type: ignore[no-untyped-def]
    """Without a status filter the queue lists the open work: dismissed and approved claims only
    when asked for; the count counts the same."""
    open_ = {status: make_claim(status=status, priority=50.0 + n) for n, status in enumerate(Claim.Status)}
    finished = {open_.pop(Claim.Status.DISMISSED).pk, open_.pop(Claim.Status.APPROVED).pk}
    client = logged_in(reviewer)
    shown = set(shown_ids(client.get(reverse("claims:list")).content.decode()))
    assert shown == {claim.pk for claim in open_.values()}
    assert selectors.queue_count(user=reviewer, values={}) == len(open_)
    asked = set(shown_ids(client.get(reverse("claims:list"), {"status": ["dismissed", "approved"]}).content.decode()))
    assert asked == finished


@pytest.mark.parametrize("half_life_days", [7.0, 0.5, 2.5])
def test_pages_walk_the_stored_order_exactly(reviewer, half_life_days: float) -> None:  # type: ignore[no-untyped-def]
    """Claims at every hour of many days, some with no seen_at, with tied priorities and totals,
    page by page in the order computed here, with and without filters."""
    import random

    QueueOrderBasis.objects.filter(id=1).update(half_life_days=half_life_days)
    rng = random.Random(int(half_life_days * 10))
    made = []
    for n in range(90):
        hours = rng.choice([0, 1, 11, 12, 13, 23, 24, 25]) + 24 * rng.choice([0, 0, 1, 2, 3, 6, 13, 40, 200])
        seen_at = None if n % 23 == 5 else NEWEST - timedelta(hours=hours, minutes=rng.choice([0, 30]))
        status = rng.choice([Claim.Status.NEW, Claim.Status.NEW, Claim.Status.CHECK, Claim.Status.DISMISSED])
        priority = rng.choice([30.0, 34.5, 35.0, 39.9, 40.0, 45.0])
        made.append(make_claim(priority=priority, seen_at=seen_at, claim_type="numeric" if n % 3 else "quote", status=status))
    day = day_of(NEWEST)

    def total(claim: Claim) -> float:
        days = day - day_of(claim.seen_at) if claim.seen_at else 0
        return claim.priority + round(10.0 * 0.5 ** (max(days, 0) / half_life_days) * 10000) / 10000

    for values in ({}, {"type": ["numeric"]}, {"status": ["check"]}, {"status": ["new", "dismissed"], "type": ["numeric"]}):
        chosen = set(claims_filtered(Claim.objects.all(), values=selectors.queue_view(values), user=reviewer).values_list("id", flat=True))
        expected = [c.pk for c in sorted((c for c in made if c.pk in chosen), key=lambda c: (total(c), c.pk), reverse=True)]
        for size in (1, 4, 13, 100):
            assert walk(reviewer, values, size) == expected, (values, size)


def test_the_row_offers_what_the_services_allow(reviewer) -> None:  # type: ignore[no-untyped-def]
    """The row's buttons come from services.claim_allowed_actions, which reads the transition
    tables the services enforce: every status, each action offered iff the service accepts it."""
    from factcheck.claims.workflow import services
    from factcheck.claims.workflow.errors import TransitionNotAllowed

    client = logged_in(reviewer)
    calls = {
        "check": lambda claim: services.claim_mark_check(claim=claim, actor=reviewer),
        "dismiss": lambda claim: services.claim_dismiss(claim=claim, actor=reviewer, reason="Opinion."),
        "research": lambda claim: services.claim_start_research(claim=claim, actor=reviewer),
    }
    for status in Claim.Status:
        allowed = services.claim_allowed_actions(claim_status=status, user=reviewer)
        claim = make_claim(status=status)
        html = client.get(reverse("claims:list"), {"status": status}).content.decode()
        row = html[html.index(f'id="claim-{claim.pk}"') :]
        assert ('value="check"' in row) == ("check" in allowed), status
        assert ('data-key="d"' in row) == ("dismiss" in allowed), status
        for action, call in calls.items():
            try:
                call(make_claim(status=status))
            except TransitionNotAllowed:
                assert action not in allowed, (status, action)
            else:
                assert action in allowed, (status, action)
    # The drift this replaced: a claim in research may be dismissed, and its row says so.
    assert "dismiss" in services.claim_allowed_actions(claim_status=Claim.Status.IN_RESEARCH, user=reviewer)
