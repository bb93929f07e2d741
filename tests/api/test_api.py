"""The read-only REST API, per persona: reviewer, editor and admin read everything; outsider
(logged in, no role) gets 403 on lists and 404 on objects; anonymous gets 401. Filters are the
queue's, pages are keyset pages, and nothing but GET/HEAD/OPTIONS is allowed."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from factcheck.api.models import ApiToken
from factcheck.api.services import token_hash
from factcheck.claims.models import Claim, Verdict
from factcheck.claims.queue.filters import FILTER_FIELDS, claims_filtered
from factcheck.claims.workflow.reviewed import claim_reviewed_default
from tests.api.conftest import Desk, token_client
from tests.conftest import PERSONA_PASSWORD, queue_order_day
from tests.workflow.factories import make_claim

pytestmark = pytest.mark.django_db

# token + user (one join), role, the page: three; the page's walk turns parallel workers off
# first (factcheck.postgres.base.serial_plans), one more, and in a test's transaction its
# savepoint and release, two more. A session costs one fewer (the session is read from Redis,
# the role comes with the user).
LIST_MAX_QUERIES = 7
CLAIM_MAX_QUERIES = 6  # + evidence, verdicts with their authors, the verdicts' evidence
LISTS = ["api:claims", "api:clusters", "api:verdicts", "api:root", "api:schema"]


def ids(response: Any) -> list[int]:
    return [row["id"] for row in response.json()["results"]]


def session_client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def object_urls(desk: Desk) -> list[str]:
    return [
        reverse("api:claim", args=[desk.lyons.pk]),
        reverse("api:cluster", args=[desk.cluster.pk]),
        reverse("api:verdict", args=[desk.approved.pk]),
    ]


# --- Who sees what ------------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["reviewer", "editor", "admin_user"])
def test_roles_read_every_endpoint_with_a_token(persona: str, desk: Desk, request: pytest.FixtureRequest) -> None:
    client = token_client(request.getfixturevalue(persona))
    for name in LISTS:
        assert client.get(reverse(name)).status_code == 200, name
    for url in object_urls(desk):
        assert client.get(url).status_code == 200, url


def test_session_login_works_too(reviewer, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    client = session_client(reviewer)
    assert ids(client.get(reverse("api:claims"))) == [desk.lyons.pk, desk.lyons_globe.pk, desk.wu.pk, desk.other.pk]
    # A browser gets the browsable API.
    page = client.get(reverse("api:claims"), HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")


def test_outsider_gets_403_on_lists_and_404_on_objects(outsider, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    for client in (token_client(outsider), session_client(outsider)):
        for name in LISTS:
            assert client.get(reverse(name)).status_code == 403, name
        for url in object_urls(desk):
            assert client.get(url).status_code == 404, url


def test_anonymous_and_bad_tokens_get_401(reviewer, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    for client in (Client(), Client(HTTP_AUTHORIZATION="Token fct_not-a-token"), Client(HTTP_AUTHORIZATION="Token two words")):
        for url in [*(reverse(name) for name in LISTS), *object_urls(desk)]:
            response = client.get(url)
            assert response.status_code == 401, url
            assert response["WWW-Authenticate"] == "Token"
    # Not the web UI's login redirect.
    assert Client().get(reverse("api:claims"), HTTP_ACCEPT="text/html").status_code == 401


def test_token_of_an_inactive_user_is_refused(reviewer) -> None:  # type: ignore[no-untyped-def]
    client = token_client(reviewer)
    reviewer.is_active = False
    reviewer.save()
    assert client.get(reverse("api:claims")).status_code == 401


def test_missing_objects_are_404(reviewer) -> None:  # type: ignore[no-untyped-def]
    client = token_client(reviewer)
    for name in ["api:claim", "api:cluster", "api:verdict"]:
        assert client.get(reverse(name, args=[987654])).status_code == 404
        # Beyond PostgreSQL's bigint: still a 404, not a 500.
        assert client.get(reverse(name, args=[2**70])).status_code == 404
    # A malformed id or an unknown endpoint: the API's JSON 404, not the web UI's HTML page.
    for path in ["/api/v1/claims/-1/", "/api/v1/claims/abc/", "/api/v1/nothing/"]:
        response = client.get(path)
        assert (response.status_code, response["Content-Type"], response.json()) == (404, "application/json", {"detail": "No such endpoint."})
        assert Client().get(path).status_code == 401


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_only_reads_are_allowed(method: str, reviewer, editor, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    client = token_client(editor)
    for url in [*(reverse(name) for name in LISTS), *object_urls(desk)]:
        response = getattr(client, method)(url, data={"status": "dismissed"}, content_type="application/json")
        assert response.status_code == 405, url
        assert "GET" in response["Allow"] and method.upper() not in response["Allow"]
    desk.lyons.refresh_from_db()
    assert desk.lyons.cluster.status == Claim.Status.APPROVED
    # Before authentication: anonymous, and a browser session without a CSRF token, get 405 too.
    csrf_checked = Client(enforce_csrf_checks=True)
    assert csrf_checked.login(username=reviewer.username, password=PERSONA_PASSWORD)
    for other in (Client(), csrf_checked):
        assert getattr(other, method)(reverse("api:claims")).status_code == 405
    assert client.head(reverse("api:claims")).status_code == 200
    assert client.options(reverse("api:claims")).status_code == 200


# --- Tokens ---------------------------------------------------------------------------------------


def test_create_api_token_command_prints_a_token_stored_hashed(reviewer) -> None:  # type: ignore[no-untyped-def]
    out, err = StringIO(), StringIO()
    call_command("create_api_token", reviewer.username, "--name", "newsroom-sync", stdout=out, stderr=err)
    secret = out.getvalue().strip()
    token = ApiToken.objects.get(user=reviewer, name="newsroom-sync")
    assert token.key_hash == token_hash(secret) and secret not in token.key_hash and secret.startswith(token.prefix)
    assert token.last_used_at is None
    client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert client.get(reverse("api:claims")).status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None
    # The same name twice is refused; so is an unknown user.
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_api_token", reviewer.username, "--name", "newsroom-sync", stdout=out, stderr=err)
    with pytest.raises(CommandError, match="No user"):
        call_command("create_api_token", "nobody", stdout=out, stderr=err)
    # Revoking (deleting the row, as the admin does) ends it.
    token.delete()
    assert client.get(reverse("api:claims")).status_code == 401


# --- Claims ---------------------------------------------------------------------------------------


def test_claim_rows_and_detail(reviewer, desk: Desk, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    client = token_client(reviewer)
    with django_assert_max_num_queries(LIST_MAX_QUERIES):
        response = client.get(reverse("api:claims"))
    body = response.json()
    assert body["next"] is None and body["next_cursor"] is None
    row = body["results"][0]
    assert row["id"] == desk.lyons.pk and row["sentence"] == desk.lyons.sentence
    assert row["status"] == "approved" and row["assignee"] == reviewer.username
    assert row["article"]["outlet"] == "MassLive" and row["article"]["id"] == desk.lyons.article_id
    assert (row["cluster_id"], row["cluster_size"], row["cluster_outlets"]) == (desk.cluster.pk, 2, 2)
    assert row["quantities"][0]["value"] == 1500.0 and row["priority_parts"]["outlets"] == 2
    assert "text" not in row["article"]  # never the article's text in a list

    with django_assert_max_num_queries(CLAIM_MAX_QUERIES):
        detail = client.get(reverse("api:claim", args=[desk.lyons.pk])).json()
    assert {k: v for k, v in detail.items() if k not in ("evidence", "verdicts")} == row
    assert [e["title"] for e in detail["evidence"]] == ["ICE statistics"]
    assert [(v["revision"], v["status"], v["rating"]) for v in detail["verdicts"]] == [(1, "approved", "mostly_true")]
    assert detail["verdicts"][0]["evidence"][0]["url"] == "https://www.ice.gov/statistics"


def queue_ids(client: Client, query: str) -> list[int]:
    html = client.get(reverse("claims:list") + "?" + query).content.decode()
    return [int(pk) for pk in re.findall(r'<tr id="claim-(\d+)"', html)]


QUERIES = [
    "",
    "status=approved&status=drafted",
    "status=new",
    "type=comparison",
    "speaker=lyons",
    "has_number=yes",
    "has_number=no",
    "tag=crime",
    "q=crime+rate",
    'q="third year"',
    "assignee=mine",
    "assignee=unassigned",
    "score_min=0.8",
    "score_min=0.5&score_max=0.92",
    "date_to=2025-06-30",
    "date_from=2025-07-01",
]


@pytest.mark.parametrize("query", QUERIES)
def test_filters_select_what_the_queue_shows(query: str, reviewer, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    """The API lists every matching appearance; the queue, one row per cluster: the best-ranked
    (queue_rank, then id) of its matching appearances, in the same order. (The queue's default
    view is the open work, the API's every status: the queue is asked for every status here.)"""
    api = ids(token_client(reviewer).get(reverse("api:claims") + "?" + query))
    claims = {claim.pk: claim for claim in Claim.objects.filter(pk__in=api)}
    best: dict[str, tuple[float, int]] = {}
    for pk in api:
        key = claims[pk].cluster_key or f"claim:{pk}"
        best[key] = max(best.get(key, (float("-inf"), 0)), (claims[pk].queue_rank, pk))
    every_status = "" if "status=" in query else "&" + "&".join(f"status={status}" for status in Claim.Status.values)
    assert queue_ids(session_client(reviewer), query + every_status) == [pk for pk in api if best[claims[pk].cluster_key or f"claim:{pk}"][1] == pk]


def test_filters_select_the_expected_claims(reviewer, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    """The comparison above cannot fail by both being empty: the expected rows, spelled out."""
    client = token_client(reviewer)

    def get(query: str) -> list[int]:
        return ids(client.get(reverse("api:claims") + "?" + query))

    # Status and assignee are the cluster's: the Globe's appearance was approved with Lyons's.
    assert get("status=new") == [desk.other.pk]
    assert get("status=approved") == [desk.lyons.pk, desk.lyons_globe.pk]
    assert get("speaker=LYONS") == [desk.lyons.pk, desk.lyons_globe.pk]
    assert get("type=comparison") == [desk.wu.pk]
    assert get("has_number=yes") == [desk.lyons.pk]  # only its quantities were parsed
    assert get("has_number=no") == [desk.lyons_globe.pk, desk.wu.pk, desk.other.pk]
    assert get("tag=crime") == [desk.wu.pk]
    assert get("q=crime+rate") == [desk.wu.pk]
    assert get("assignee=mine") == [desk.lyons.pk, desk.lyons_globe.pk, desk.wu.pk]
    assert get("date_to=2025-06-30") == [desk.other.pk]
    assert get(f"outlet={desk.other.article.outlet_id}") == [desk.other.pk]
    assert get(f"article={desk.wu.article_id}") == [desk.wu.pk]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("status=bogus", "status"),
        ("type=opinion", "type"),
        ("score_min=2", "score_min"),
        ("score_min=nan", "score_min"),
        ("score_min=0.9&score_max=0.1", "score_max"),
        ("date_from=yesterday", "date_from"),
        ("date_from=2025-02-01&date_to=2025-01-01", "date_to"),
        ("assignee=everyone", "assignee"),
        ("outlet=0", "outlet"),
        ("has_number=maybe", "has_number"),
        ("tag=" + "x" * 41, "tag"),
        ("speaker=a%00b", "speaker"),
        ("cursor=@@@", "cursor"),
        ("cursor=bmFuOjE", "cursor"),  # "nan:1"
        ("page_size=0", "page_size"),
        ("page_size=201", "page_size"),
        ("page_size=ten", "page_size"),
    ],
)
def test_invalid_parameters_are_400_with_field_errors(query: str, field: str, reviewer, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    response = token_client(reviewer).get(reverse("api:claims") + "?" + query)
    assert response.status_code == 400
    errors = response.json()
    assert list(errors) == [field] and errors[field] and all(isinstance(message, str) for message in errors[field])


def test_every_invalid_parameter_is_reported_at_once(reviewer) -> None:  # type: ignore[no-untyped-def]
    response = token_client(reviewer).get(reverse("api:verdicts") + "?status=bogus&rating=great&score_min=-1")
    assert response.status_code == 400
    assert set(response.json()) == {"status", "rating", "score_min"}


NASTY_TEXT = ["o'neil", "100%", "%s", "50%% off", "back\\slash", '"quoted', "a;b--", "-not or", "日本語 😀", "\u202e", "x" * 300]


@pytest.mark.parametrize("name", ["speaker", "tag", "q"])
def test_free_text_filters_take_any_text(name: str, reviewer, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    """Quotes, percent signs, backslashes and search operators are data, never SQL or
    placeholders: 200 with the matching rows (none here), or 400 when too long; never 500."""
    client = token_client(reviewer)
    for text in NASTY_TEXT:
        for url in (reverse("api:claims"), reverse("api:clusters"), reverse("api:verdicts")):
            response = client.get(url, {name: text})
            too_long = len(text) > {"speaker": 300, "tag": 40, "q": 500}[name]
            assert response.status_code == (400 if too_long else 200), (name, text, url)


def test_huge_ids_in_filters_match_nothing(reviewer, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    client = token_client(reviewer)
    for query in (f"outlet={2**70}", f"article={2**70}", f"assignee={2**70}"):
        response = client.get(reverse("api:claims") + "?" + query)
        assert response.status_code == 200 and response.json()["results"] == [], query


# --- Pagination -----------------------------------------------------------------------------------


def test_keyset_pages_walk_the_queue_once_with_the_filters_kept(reviewer, desk: Desk, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    for n in range(11):
        make_claim(outlet="WBUR", priority=float(n % 4) * 10, speaker=f"Speaker {n}")  # ties on priority: the id breaks them
    client = token_client(reviewer)
    expected = list(Claim.objects.filter(speaker__startswith="Speaker").order_by("-priority", "-id").values_list("id", flat=True))
    seen: list[int] = []
    url: str | None = reverse("api:claims") + "?speaker=speaker&page_size=3"
    while url:
        with django_assert_max_num_queries(LIST_MAX_QUERIES):
            body = client.get(url).json()
        assert len(body["results"]) <= 3
        seen += [row["id"] for row in body["results"]]
        url = body["next"]
        if url:
            assert "speaker=speaker" in url and "page_size=3" in url and f"cursor={body['next_cursor']}" in url
    assert seen == expected and len(seen) == 11


def test_search_pages_walk_the_matches_in_queue_order(reviewer, desk: Desk, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    """With q, pages come from the queue's search path (matches sorted before fetching rows):
    the same claims, in the same order, as the plain filter gives."""
    for n in range(9):
        make_claim(outlet="WBUR", sentence=f"Violent crime rose {n} percent downtown.", priority=float(n % 3) * 10)
    client = token_client(reviewer)
    expected = list(
        claims_filtered(Claim.objects.all(), values={"q": "crime", "status": ["new"]}, user=reviewer)
        .order_by("-priority", "-id")
        .values_list("id", flat=True)
    )
    seen: list[int] = []
    url: str | None = reverse("api:claims") + "?q=crime&status=new&page_size=4"
    while url:
        with django_assert_max_num_queries(LIST_MAX_QUERIES + 1):  # + the page's ids
            body = client.get(url).json()
        seen += [row["id"] for row in body["results"]]
        url = body["next"]
    assert seen == expected and len(seen) == 9
    assert client.get(reverse("api:claims") + "?q=crime&cursor=@@@").status_code == 400


def test_claims_come_in_queue_order_with_recency_added_as_read(reviewer) -> None:  # type: ignore[no-untyped-def]
    """The queue's rank is the standing priority plus recency (10 points for the newest claim,
    halving every 7 days): a newer claim that stands lower comes first, and pages carry it."""
    newest = datetime(2026, 3, 8, 12, tzinfo=UTC)
    queue_order_day(newest)
    older = make_claim(speaker="Speaker old", priority=50.0, priority_parts={"checkworthiness": 50.0}, seen_at=newest - timedelta(days=7))
    newer = make_claim(speaker="Speaker new", priority=46.0, priority_parts={"checkworthiness": 46.0}, seen_at=newest)
    client = token_client(reviewer)
    first = client.get(reverse("api:claims") + "?speaker=speaker&page_size=1").json()
    assert [(row["id"], row["priority"], row["priority_parts"]) for row in first["results"]] == [
        (newer.pk, 56.0, {"checkworthiness": 46.0, "recency": 10.0})
    ]
    second = client.get(first["next"]).json()
    assert [(row["id"], row["priority"], row["priority_parts"]["recency"]) for row in second["results"]] == [(older.pk, 55.0, 5.0)]
    assert second["next"] is None
    assert client.get(reverse("api:claim", args=[older.pk])).json()["priority"] == 55.0


def test_page_size_default_and_cap(reviewer, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_API_PAGE_SIZE = 2
    settings.FACTCHECK_API_MAX_PAGE_SIZE = 3
    for n in range(4):
        make_claim(priority=float(n))
    client = token_client(reviewer)
    assert len(ids(client.get(reverse("api:claims")))) == 2
    assert len(ids(client.get(reverse("api:claims") + "?page_size=3"))) == 3
    assert client.get(reverse("api:claims") + "?page_size=4").status_code == 400


def test_list_query_count_does_not_grow_with_rows(reviewer, editor, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    for n in range(30):
        claim = make_claim(priority=float(n), cluster_key=f"{n:040d}", assignee=editor)
        services_verdict = Verdict.objects.create(claim=claim, rating="false", headline=f"H {n}", explanation="E", author=reviewer)
        services_verdict.evidence.create(claim=claim, kind="other", url="https://example.org", title="t", added_by=reviewer)
    client = token_client(reviewer)
    for name, max_queries in [("api:claims", LIST_MAX_QUERIES), ("api:clusters", LIST_MAX_QUERIES), ("api:verdicts", LIST_MAX_QUERIES + 1)]:
        with django_assert_max_num_queries(max_queries):
            response = client.get(reverse(name) + "?page_size=200")
        assert response.status_code == 200


# --- Clusters and verdicts -------------------------------------------------------------------------


def test_cluster_list_filters_and_detail_with_appearances(reviewer, desk: Desk, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    client = token_client(reviewer)
    # Every claim is in a cluster: the others are clusters of one.
    assert len(ids(client.get(reverse("api:clusters")))) == Claim.objects.values("cluster_id").distinct().count()
    rows = client.get(reverse("api:clusters") + "?min_size=2").json()["results"]
    assert [(r["id"], r["size"], r["first_claim_id"], r["first_sentence"]) for r in rows] == [
        (desk.cluster.pk, 2, desk.lyons.pk, desk.lyons.sentence)
    ]
    assert ids(client.get(reverse("api:clusters") + "?min_size=3")) == []
    # Queue filters pick clusters by their appearances.
    assert ids(client.get(reverse("api:clusters") + "?status=approved&speaker=lyons")) == [desk.cluster.pk]
    assert ids(client.get(reverse("api:clusters") + "?status=new&speaker=lyons")) == []
    assert ids(client.get(reverse("api:clusters") + "?type=comparison&min_size=2")) == []
    assert client.get(reverse("api:clusters") + "?min_size=0").json() == {"min_size": ["Ensure this value is greater than or equal to 1."]}
    with django_assert_max_num_queries(LIST_MAX_QUERIES + 1):
        detail = client.get(reverse("api:cluster", args=[desk.cluster.pk])).json()
    assert [a["id"] for a in detail["appearances"]] == [desk.lyons.pk, desk.lyons_globe.pk]
    assert detail["appearances"][1]["article"]["outlet"] == "Boston Globe"


def test_verdicts_list_every_revision_and_filters(reviewer, editor, desk: Desk) -> None:  # type: ignore[no-untyped-def]
    client = token_client(reviewer)
    assert ids(client.get(reverse("api:verdicts"))) == [desk.draft.pk, desk.approved.pk]
    assert ids(client.get(reverse("api:verdicts") + "?verdict_status=approved")) == [desk.approved.pk]
    assert ids(client.get(reverse("api:verdicts") + "?verdict_status=draft&verdict_status=returned")) == [desk.draft.pk]
    assert ids(client.get(reverse("api:verdicts") + "?rating=half_true")) == [desk.draft.pk]
    assert ids(client.get(reverse("api:verdicts") + f"?claim={desk.lyons.pk}")) == [desk.approved.pk]
    assert ids(client.get(reverse("api:verdicts") + "?speaker=wu")) == [desk.draft.pk]
    row = client.get(reverse("api:verdict", args=[desk.approved.pk])).json()
    assert (row["claim"], row["status"], row["author"], row["approved_by"]) == (desk.lyons.pk, "approved", reviewer.username, editor.username)
    assert row["claim_sentence"] == desk.lyons.sentence and [e["id"] for e in row["evidence"]] == [desk.evidence.pk]
    # The claim as checked: drafted without one, the default made from the sentence.
    assert row["claim_reviewed"] == claim_reviewed_default(desk.lyons.sentence, attribution=desk.lyons.attribution) != ""


# --- Schema ---------------------------------------------------------------------------------------


def test_schema_describes_every_queue_filter(reviewer) -> None:  # type: ignore[no-untyped-def]
    response = token_client(reviewer).get(reverse("api:schema") + "?format=json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    for path in ["/api/v1/claims/", "/api/v1/clusters/", "/api/v1/verdicts/"]:
        parameters = {p["name"]: p["schema"] for p in schema["paths"][path]["get"]["parameters"]}
        assert set(FILTER_FIELDS) | {"cursor", "page_size"} <= set(parameters), path
        assert parameters["status"]["items"]["enum"] == [value for value, _ in Claim.Status.choices]
        assert parameters["score_min"] == {"type": "number", "minimum": 0, "maximum": 1}
        assert parameters["date_from"] == {"type": "string", "format": "date"}
