"""Search finds claims, and every view says how many (issue 15, items 2 and 3).

Personas: reviewer (searches, works through "My claims"), editor (approves others' verdicts
from the inbox; never their own), a second editor, outsider (no role: 403).
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any
from urllib.parse import urlencode

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import factcheck.cache
from factcheck.accounts.roles import Role
from factcheck.accounts.services import user_create_with_role
from factcheck.articles.seeds import seed_articles
from factcheck.articles.services import article_ingest
from factcheck.cache import QUEUE_CHANGES
from factcheck.claims.models import Claim, Verdict
from factcheck.claims.queue import selectors
from factcheck.claims.queue.filters import MY_CLAIMS_VALUES, claims_filtered
from factcheck.claims.workflow import services
from factcheck.factchecks.matching import MatchRow
from factcheck.factchecks.models import FactCheck
from factcheck.factchecks.services import claim_matches_store
from pipeline.nlp.segment import split_sentences
from tests.conftest import PERSONA_PASSWORD
from tests.web.test_queue import HTMX, expected_order, filter_world, logged_in, make_article, make_claim, shown_ids  # noqa: F401 - filter_world is a fixture

pytestmark = pytest.mark.django_db

FLOOD = "flood the zone"


def shown_count(client: Client, html: str) -> int:
    """The count a queue page shows: it asks for it (views.claim_count) once it is shown."""
    url = re.search(r'class="result-count"[^>]* hx-get="([^"]+)"', html).group(1).replace("&amp;", "&")  # type: ignore[union-attr]
    return int(re.search(r'data-result-count="(\d+)"', client.get(url).content.decode()).group(1))  # type: ignore[union-attr]


def count_text(client: Client, params: dict[str, Any]) -> str:
    return client.get(reverse("claims:count"), params).content.decode()


def next_href(html: str) -> str:
    match = re.search(r'<a class="button" href="(\?[^"]*after=[^"]+)"', html)
    return reverse("claims:list") + match.group(1).replace("&amp;", "&") if match else ""


def walk_pages(client: Client, params: dict[str, Any]) -> tuple[list[int], list[str]]:
    """Every row of a view, page after page through its links; and each page's html."""
    url = reverse("claims:list") + "?" + urlencode(params, doseq=True)
    seen: list[int] = []
    pages: list[str] = []
    while url:
        html = client.get(url).content.decode()
        pages.append(html)
        seen += shown_ids(html)
        url = next_href(html)
    return seen, pages


@pytest.fixture
def seeded() -> dict[str, list[Claim]]:
    """The three seed articles (each quotes "flood the zone"), a claim for every sentence,
    the quote's claims standing lowest: in queue order they would come last."""
    flood: list[Claim] = []
    others: list[Claim] = []
    for n, data in enumerate(seed_articles()):
        article, _ = article_ingest(data=data, batch=None)
        for m, sentence in enumerate(split_sentences(article.text)):
            text = article.text[sentence.start : sentence.end]
            is_flood = FLOOD in text.lower()
            claim = Claim.objects.create(
                article=article, claim_key=f"{n:02d}{m:038d}", sentence=text, start_offset=sentence.start, end_offset=sentence.end,
                priority=5.0 if is_flood else 60.0 - m * 0.1,
            )
            (flood if is_flood else others).append(claim)
    assert len(flood) >= 3 and len({claim.article_id for claim in flood}) == 3  # the premise: the quote is in all three
    return {"flood": flood, "others": others}


# --- Search ---------------------------------------------------------------------------------


def test_searching_flood_the_zone_lists_the_claims_that_say_it_first(reviewer, seeded, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_QUEUE_PAGE_SIZE = 5
    client = logged_in(reviewer)
    flood_ids = {claim.pk for claim in seeded["flood"]}
    html = client.get(reverse("claims:list"), {"q": FLOOD}).content.decode()
    # Only the claims that say it (today: every claim of the three articles, these at rows 45-50).
    seen, pages = walk_pages(client, {"q": FLOOD})
    assert set(seen) == flood_ids and len(seen) == len(flood_ids)
    assert shown_count(client, html) == len(flood_ids)
    assert f"matching “{FLOOD}” in the claim’s text" in count_text(client, {"q": FLOOD})
    # The matched words are marked; the stop word between them is not a match.
    assert "<mark>flood</mark> the <mark>zone</mark>" in html

    # In the whole article: the same claims first, then every other claim of the three
    # articles, marked as found there, in queue order; the count says how many.
    seen, pages = walk_pages(client, {"q": FLOOD, "in_article": "yes"})
    everything = flood_ids | {claim.pk for claim in seeded["others"]}
    assert set(seen[: len(flood_ids)]) == flood_ids
    assert seen[len(flood_ids) :] == [c.pk for c in sorted(seeded["others"], key=lambda c: (c.priority, c.pk), reverse=True)]
    assert len(seen) == len(everything) == shown_count(client, pages[0]) == shown_count(client, pages[-1])
    assert "found in the article" in pages[-1] and "in the claim or its article" in count_text(client, {"q": FLOOD, "in_article": "yes"})


def test_a_quoted_phrase_does_not_match_the_words_apart_and_the_phrase_ranks_first(reviewer) -> None:  # type: ignore[no-untyped-def]
    article = make_article(text="Nothing about floods here.")
    apart = make_claim(article, sentence="The zone near the river may flood again this spring.", priority=90.0)
    phrase = make_claim(article, sentence="We are going to flood the zone in sanctuary cities.", priority=10.0)
    far_apart = make_claim(article, sentence="Flood warnings were issued yesterday for the whole coastal zone.", priority=95.0)
    client = logged_in(reviewer)
    quoted = client.get(reverse("claims:list"), {"q": f'"{FLOOD}"'}).content.decode()
    assert shown_ids(quoted) == [phrase.pk] and shown_count(client, quoted) == 1
    # Unquoted, the words apart match too, after the phrase (which stands lowest in the queue),
    # in queue order.
    unquoted = client.get(reverse("claims:list"), {"q": FLOOD}).content.decode()
    assert shown_ids(unquoted) == [phrase.pk, far_apart.pk, apart.pk]
    assert shown_count(client, unquoted) == 3


def queue_walks(client: Client, params: dict[str, str]) -> tuple[list[int], int]:
    """The rows a queue page shows, and how many walks down the queue's order it read them with."""
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("claims:list"), params).content.decode()
    walks = [q["sql"] for q in queries.captured_queries if 'FROM "claims"' in q["sql"] and '"queue_rank" DESC' in q["sql"] and "LIMIT" in q["sql"]]
    return shown_ids(page), len(walks)


def test_words_no_claim_has_in_that_order_are_listed_in_one_walk_and_in_two_once_one_has(reviewer) -> None:  # type: ignore[no-untyped-def]
    """A search's phrase group (its words as typed) is only read when some claim holds the
    phrase's word pairs: "deported boston" when every claim says "Boston ... deported"."""
    article = make_article(text="Nothing here.")
    apart = [make_claim(article, sentence=f"Boston said {n} people were deported last month.", priority=90.0 - n) for n in range(3)]
    client = logged_in(reviewer)
    assert queue_walks(client, {"q": "deported boston"}) == ([claim.pk for claim in apart], 1)
    phrase = make_claim(article, sentence="Officials deported Boston residents, the mayor said.", priority=10.0)
    assert queue_walks(client, {"q": "deported boston"}) == ([phrase.pk] + [claim.pk for claim in apart], 2)
    # A cursor into the second group keeps its meaning whether the first can match or not.
    page_size = 2
    first = selectors.queue_page(user=reviewer, values={"q": "deported boston"}, cursor=None, page_size=page_size)
    second = selectors.queue_page(user=reviewer, values={"q": "deported boston"}, cursor=first.next_cursor, page_size=page_size)
    assert [row["id"] for row in first.rows + second.rows] == [phrase.pk] + [claim.pk for claim in apart]
    phrase.delete()
    after = selectors.queue_page(user=reviewer, values={"q": "deported boston"}, cursor=first.next_cursor, page_size=page_size)
    assert [row["id"] for row in after.rows] == [claim.pk for claim in apart[1:]]


def test_a_phrases_adjacent_pairs_never_leave_out_one_of_its_matches() -> None:
    """claims.phrase_pairs (claims migration 0025) is only a prefilter: every claim a phrase query
    matches holds the pairs claim_query_pairs asks of it. Checked over the seed articles'
    sentences and sentences with hyphens, apostrophes, figures and repeated words, for every
    run of two to four words in them, as a phrase and as the search a reviewer types."""
    article = make_article(text="Pairs.")
    sentences = [seed.text[sentence.start : sentence.end] for seed in seed_articles() for sentence in split_sentences(seed.text)][:60] + [
        "Covid-19 cases rose 3.5% in the e-mail survey of O'Brien's voters.",
        "The the zone zone: flood the flood, zone the zone.",
        "Officials deported 1,500 people in Boston last week, said Mr. O'Brien.",
        r"A path C:\data\files and a back\slash stayed.",
    ]
    for n, sentence in enumerate(sentences):
        make_claim(article, sentence=sentence, speaker="Jane O'Neil" if n % 5 == 0 else "")
    words = [sentence.split() for sentence in sentences]
    runs = sorted({" ".join(w[i : i + size]) for w in words for size in (2, 3, 4) for i in range(len(w) - size + 1)})
    queries = [("phraseto_tsquery", run) for run in runs] + [("websearch_to_tsquery", f'"{run}" {run.split()[0]}') for run in runs[::3]]
    with connection.cursor() as cursor:
        found, with_pairs = 0, 0
        for function, text in queries:
            cursor.execute(
                f"SELECT count(*) FILTER (WHERE search @@ q), count(*) FILTER (WHERE search @@ q AND phrase_pairs @> claim_query_pairs(q)),"
                f" max(cardinality(claim_query_pairs(q))) FROM claims, {function}('english', %s) AS q",
                [text],
            )
            matches, kept, pairs = cursor.fetchone()
            assert kept == matches, (function, text)
            found += matches
            with_pairs += pairs > 0 and matches
        # The premise: many of the matches were found through pairs (the rest are runs with a stop
        # word inside, 'flood' <2> 'zone', left to the phrase check alone).
        assert found > len(runs) and with_pairs > found // 4

        def pairs(function: str, text: str) -> list[str]:
            cursor.execute(f"SELECT claim_query_pairs({function}('english', %s))", [text])
            return cursor.fetchone()[0]

        assert pairs("phraseto_tsquery", "deported boston") == ["deport boston"]
        assert pairs("phraseto_tsquery", FLOOD) == []  # 'flood' <2> 'zone': no adjacent pair, the phrase is checked alone
        assert pairs("websearch_to_tsquery", '"deported boston" council') == ["deport boston"]
        assert pairs("websearch_to_tsquery", '"deported boston" or council') == []  # a match need not hold it
        assert pairs("websearch_to_tsquery", '-"deported boston" council') == []
        assert pairs("websearch_to_tsquery", "deported boston") == []  # no order asked
        cursor.execute("SELECT claim_query_pairs(to_tsquery('simple', 'deport:* <-> boston'))")
        assert cursor.fetchone()[0] == []  # a prefix is no one lexeme


def test_next_claim_in_a_search_follows_the_searchs_order(reviewer) -> None:  # type: ignore[no-untyped-def]
    """The claim page's "next claim in the view" goes through a search's groups as its pages do:
    the phrase match first although it stands lowest in the queue, then the other matches."""
    article = make_article(text="Nothing about floods here.")
    apart = make_claim(article, sentence="The zone near the river may flood again this spring.", priority=90.0)
    phrase = make_claim(article, sentence="We are going to flood the zone in sanctuary cities.", priority=10.0)
    far_apart = make_claim(article, sentence="Flood warnings were issued yesterday for the whole coastal zone.", priority=95.0)
    client = logged_in(reviewer)
    view = urlencode({"q": FLOOD})

    def next_of(claim: Claim) -> int | None:
        html = client.get(reverse("claims:detail", args=[claim.pk]), {"view": view}).content.decode()
        found = re.search(r'<a href="/claims/(\d+)/\?view=[^"]*" id="next-claim"', html)
        return int(found.group(1)) if found else None

    assert shown_ids(client.get(reverse("claims:list"), {"q": FLOOD}).content.decode()) == [phrase.pk, far_apart.pk, apart.pk]
    assert [next_of(phrase), next_of(far_apart), next_of(apart)] == [far_apart.pk, apart.pk, None]


def test_the_highlight_is_escaped(reviewer) -> None:  # type: ignore[no-untyped-def]
    make_claim(sentence='<script>alert("x")</script> officials will flood the zone & more \x02 later.')
    html = logged_in(reviewer).get(reverse("claims:list"), {"q": "flood"}).content.decode()
    row = html[html.index('class="sentence"') :]
    row = row[: row.index("</a>")]
    assert "<script>" not in html and "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in row
    assert "will <mark>flood</mark> the zone &amp; more" in row


def test_search_pages_follow_the_search_order_exactly(reviewer, settings) -> None:  # type: ignore[no-untyped-def]
    """The queue page's search (queue_page.sql over each of the search's groups in turn)
    against the same order computed with the ORM (expected_order). Page sizes split ties and
    the boundaries between the groups."""
    about = make_article(text="The dam failed and rivers flooded the valley overnight.")
    elsewhere = make_article(text="Nothing relevant here.")
    for n in range(4):
        make_claim(about, sentence=f"Claim {n} on the council budget.", priority=float(n % 2) * 10, claim_type=["numeric", "quote"][n % 2])
    for n in range(7):
        words = ["The flood cost", "Flood damage reached", "After the flood, insurers paid"][n % 3]
        make_claim(elsewhere, sentence=f"{words} {n} million and the dam held.", priority=float(n % 3) * 10, claim_type=["numeric", "quote"][n % 2])
    make_claim(elsewhere, sentence="A flood of complaints about the dam.", priority=99.0, claim_type="quote")
    make_claim(about, sentence="The dam flooded twice.", priority=1.0)  # matches itself and through its article

    cases: list[dict[str, Any]] = [
        {"q": "flood"}, {"q": "flood dam"}, {"q": "flood damage"}, {"q": '"flood damage"'}, {"q": "flood -insurers"}, {"q": "damage flood"},
        {"q": "flood", "in_article": "yes"}, {"q": "flood", "in_article": "yes", "type": ["numeric"]},
        {"q": "valley", "in_article": "yes"}, {"q": "valley", "in_article": "yes", "type": ["quote"]},  # in an article's text only
    ]
    for values in cases:
        order = expected_order(values, reviewer)
        assert order, values
        assert selectors.queue_count(user=reviewer, values=values) == len(order)
        for size in (1, 2, 3, 50):
            seen: list[int] = []
            cursor = None
            while True:
                page = selectors.queue_page(user=reviewer, values=values, cursor=cursor, page_size=size)
                seen += [row["id"] for row in page.rows]
                if not (cursor := page.next_cursor):
                    break
            assert seen == order, (values, size)
    highlights = [row["highlight"] for row in selectors.queue_page(user=reviewer, values={"q": "flood dam"}, cursor=None, page_size=3).rows]
    assert all(any(matched for _, matched in parts) for parts in highlights)


def test_a_word_only_the_articles_have_walks_only_the_article_group(reviewer) -> None:  # type: ignore[no-untyped-def]
    """"In the whole article" for a word no claim's own text has: the rows (all found through
    their article) are printed as they are, with no highlight to ask for."""
    about = make_article(text="The dam failed and rivers flooded the valley overnight.")
    claims = [make_claim(about, sentence=f"Claim {n} on the <council> budget.", priority=float(n)) for n in range(3)]
    client = logged_in(reviewer)
    with CaptureQueriesContext(connection) as queries:
        html = client.get(reverse("claims:list"), {"q": "valley", "in_article": "yes"}).content.decode()
    statements = [query["sql"] for query in queries.captured_queries]
    # What the rows show is read once the walk has chosen them (selectors._rows_shown): all
    # found through their article, none has a headline to ask for.
    assert not any("ts_headline" in sql for sql in statements)
    assert shown_ids(html) == [claim.pk for claim in reversed(claims)]
    assert html.count("found in the article</span>") == 3 and "Claim 2 on the &lt;council&gt; budget." in html and "<mark>" not in html
    # A word the claims have too: their group is walked, and their rows marked.
    make_claim(about, sentence="The valley flooded.", priority=0.5)
    html = client.get(reverse("claims:list"), {"q": "valley", "in_article": "yes"}).content.decode()
    assert "The <mark>valley</mark> flooded." in html and html.count("found in the article</span>") == 3


def test_a_search_cursor_that_does_not_fit_starts_over(reviewer, settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_QUEUE_PAGE_SIZE = 1
    first, second = make_claim(sentence="Flood one.", priority=2.0), make_claim(sentence="Flood two.", priority=1.0)
    client = logged_in(reviewer)
    plain_cursor = selectors.queue_page(user=reviewer, values={}, cursor=None, page_size=1).next_cursor
    for cursor in ("%%%", plain_cursor, "ZzA6bmFuOjE", "Zzk6MS4wOjE"):  # malformed, a queue cursor, "g0:nan:1", "g9:1.0:1"
        assert shown_ids(client.get(reverse("claims:list"), {"q": "flood", "after": cursor}).content.decode()) == [first.pk], cursor
    html = client.get(reverse("claims:list"), {"q": "flood"}).content.decode()
    assert shown_ids(client.get(next_href(html)).content.decode()) == [second.pk]


# --- Counts ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {}, {"status": ["check"]}, {"status": ["new", "dismissed"]}, {"type": ["numeric", "causal"]}, {"speaker": "lyons"},
        {"assignee": "mine"}, {"assignee": "unassigned"}, {"has_number": "no"}, {"tag": "follow-up"}, {"score_min": "0.5"},
        {"q": "detained"}, {"q": "budget"}, {"q": "budget", "in_article": "yes"}, {"q": "mayor OR detained", "in_article": "yes", "type": ["causal"]},
    ],
)
def test_every_view_counts_the_claims_it_lists(reviewer, filter_world, settings, params: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    settings.FACTCHECK_QUEUE_PAGE_SIZE = 1  # the count is of the whole view, not of the page
    for n in range(3):
        make_claim(filter_world["numeric"].article, sentence=f"Extra claim {n} detained in the budget.", status="check", assignee=reviewer)
    client = logged_in(reviewer)
    query = urlencode(params, doseq=True)
    html = client.get(reverse("claims:list"), params).content.decode()
    real = claims_filtered(Claim.objects.all(), values=selectors_values(params), user=reviewer).count()
    assert shown_count(client, html) == real
    walked: list[int] = []
    url = reverse("claims:list") + ("?" + query if query else "")
    while url:
        page_html = client.get(url).content.decode()
        assert shown_count(client, page_html) == real  # every page of the view says the same
        walked += shown_ids(page_html)
        url = next_href(page_html)
    assert len(walked) == len(set(walked)) == real
    assert f"<strong>{real}</strong> claim" in count_text(client, params)


def selectors_values(params: dict[str, Any]) -> dict[str, Any]:
    from django.http import QueryDict

    from factcheck.claims.queue.filters import queue_filter_from

    query = QueryDict(mutable=True)
    for name, value in params.items():
        query.setlist(name, value if isinstance(value, list) else [value])
    return queue_filter_from(query).values


def test_the_count_is_its_own_request_and_needs_a_role(client: Client, reviewer, outsider, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    make_claim(status="check")
    make_claim()
    reviewers = logged_in(reviewer)
    # user, page (its walk and what its rows show), checked before, saved views (re-marked on
    # each swap), and the walk's parallel workers turned off (with its savepoint and release
    # in a test's transaction): the results never wait for the count (nor the navigation's).
    with django_assert_max_num_queries(8):
        html = reviewers.get(reverse("claims:list"), {"status": "check"}, HTTP_HX_TARGET="queue-results", **HTMX).content.decode()
    assert "data-my-claims-left" not in html and f'hx-get="{reverse("claims:count")}?status=check"' in html
    with django_assert_max_num_queries(2):  # user, count
        assert "<strong>1</strong> claim" in count_text(reviewers, {"status": "check"})
    assert client.get(reverse("claims:count")).status_code == 302  # to the login page
    assert logged_in(outsider).get(reverse("claims:count")).status_code == 403
    assert reviewers.post(reverse("claims:count")).status_code == 405


# --- My claims --------------------------------------------------------------------------------


def my_left(client: Client) -> int:
    html = client.get(reverse("claims:list")).content.decode()
    return int(re.search(r"data-my-claims-left>(\d+) left<", html).group(1))  # type: ignore[union-attr]


def test_my_claims_count_what_is_left_and_go_down_as_i_finish_them(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    mine = [make_claim(assignee=reviewer, status=status, priority=float(n)) for n, status in enumerate(["new", "check", "check", "in_research"])]
    make_claim(assignee=reviewer, status="dismissed")  # finished
    make_claim(assignee=reviewer, status="approved")  # finished
    make_claim(assignee=editor, status="check")  # someone else's
    make_claim(status="new")  # nobody's
    client = logged_in(reviewer)
    assert my_left(client) == 4

    response = client.get(reverse("claims:mine"))
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    assert "<h1>My claims</h1>" in html
    assert set(shown_ids(html)) == {claim.pk for claim in mine} and shown_count(client, html) == 4
    assert "<strong>4</strong> claims left for you" in client.get(reverse("claims:count") + "?" + response["Location"].split("?", 1)[1]).content.decode()

    # Dismissing one from the queue, then drafting a verdict on another: each is finished.
    client.post(reverse("claims:row_action", args=[mine[1].pk]), {"action": "dismiss", "reason": "Opinion.", "version": mine[1].cluster.version})
    assert my_left(client) == 3
    services.verdict_draft(claim=mine[3], actor=reviewer, rating="false", headline="Not so.", explanation="Because.", evidence_ids=[])
    assert my_left(client) == 2
    assert shown_count(client, client.get(response["Location"]).content.decode()) == 2
    assert selectors.queue_count(user=reviewer, values=MY_CLAIMS_VALUES) == 2


def test_the_navigation_counts_once_until_something_audited_changes(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    """Counting a reviewer's claims costs more than the rest of a queue page's SQL, so the
    navigation's counts are cached per user (selectors.work_counts_cached); any audited change,
    by anyone, is on the next page."""
    make_claim(assignee=reviewer, status="check")
    other = make_claim(status="new")
    client = logged_in(reviewer)
    assert my_left(client) == 1
    with CaptureQueriesContext(connection) as second_page:
        assert my_left(client) == 1
    assert not [query for query in second_page.captured_queries if "FROM verdicts WHERE" in query["sql"]]  # WORK_COUNTS_SQL did not run

    # The editor hands the reviewer a claim: the reviewer's next page says so.
    services.claim_assign(claim=other, actor=editor, assignee=reviewer)
    assert my_left(client) == 2


def test_a_views_count_is_counted_once_until_the_queue_changes(reviewer) -> None:  # type: ignore[no-untyped-def]
    """The exact count is kept under QUEUE_CHANGES: asked again, nothing is counted; a decision,
    or a stored match suggestion (the checked_before filter), is in the next count."""
    claims = [make_claim(status="new", sentence=f"Rents rose {n} percent.") for n in range(3)]
    values = {"status": ["new"]}

    def counted() -> tuple[int, bool]:
        with CaptureQueriesContext(connection) as queries:
            count = selectors.queue_count(user=reviewer, values=values)
        return count, any("COUNT(DISTINCT" in query["sql"] for query in queries.captured_queries)

    assert counted() == (3, True)
    assert counted() == (3, False)
    services.claim_mark_check(claim=claims[0], actor=reviewer)
    assert counted() == (2, True)

    values = {"checked_before": "yes"}
    assert counted() == (0, True) and counted() == (0, False)
    entry = FactCheck.objects.create(claim="Rents rose 1 percent.", publisher="Snopes", external_id="rents")
    claim_matches_store([MatchRow(claim_id=claims[1].pk, factcheck_id=entry.pk, score=0.9, rank=1)])
    assert counted() == (1, True)


def test_a_change_that_commits_after_a_reader_counted_is_not_hidden_by_the_cache(django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    """QUEUE_CHANGES moves when a change is written and again when it commits, so counts a
    page took while the change was still uncommitted are never read back as current."""
    before = QUEUE_CHANGES.current()
    # (The test's own transaction never commits; the capture runs what a commit would.)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        QUEUE_CHANGES.changed()
        during = QUEUE_CHANGES.current()  # a page counting now saw the old state
    after = QUEUE_CHANGES.current()
    assert len({before, during, after}) == 3 and None not in {before, during, after}


def test_a_missing_count_is_computed_once_while_other_workers_wait_for_it() -> None:
    """After a change every web worker asks for the same counts at once: one computes, the
    others read what it kept; one whose computing failed leaves the next to compute it."""
    calls: list[str] = []
    computing = threading.Event()

    def slow_count() -> int:
        calls.append(threading.current_thread().name)
        computing.set()
        time.sleep(0.4)
        return 15404

    key = "test-single-flight:" + QUEUE_CHANGES.current()  # type: ignore[operator]
    answers: dict[str, int] = {}

    def worker(name: str) -> None:
        answers[name] = QUEUE_CHANGES.cached(key, slow_count, 60)

    first = threading.Thread(target=worker, args=("first",), name="first")
    first.start()
    assert computing.wait(5)
    others = [threading.Thread(target=worker, args=(name,), name=name) for name in ("second", "third")]
    for thread in others:
        thread.start()
    for thread in [first, *others]:
        thread.join(10)
    assert answers == {"first": 15404, "second": 15404, "third": 15404}
    assert calls == ["first"]

    def failing() -> int:
        raise RuntimeError("the database went away")

    with pytest.raises(RuntimeError):
        QUEUE_CHANGES.cached(key + ":other", failing, 60)
    assert QUEUE_CHANGES.cached(key + ":other", lambda: 7, 60) == 7  # not left waiting for the failed one


def test_a_worker_that_stops_waiting_computes_the_count_and_leaves_the_claim_to_its_holder(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from django.core.cache import cache

    monkeypatch.setattr(factcheck.cache, "COMPUTE_WAIT_SECONDS", 0.2)
    token = QUEUE_CHANGES.current()
    assert token is not None
    key = "test-gave-up:" + token
    holder = f"{key}:computing:{token}"
    cache.add(holder, 1, 30)  # another worker, still computing it
    assert QUEUE_CHANGES.cached(key, lambda: 3, 60) == 3
    assert cache.get(holder) == 1  # its claim stands until it is done
    cache.delete(holder)


def test_my_claims_needs_a_role_and_get(client: Client, reviewer, outsider) -> None:  # type: ignore[no-untyped-def]
    assert client.get(reverse("claims:mine")).status_code == 302  # to the login page
    assert logged_in(outsider).get(reverse("claims:mine")).status_code == 403
    assert logged_in(reviewer).post(reverse("claims:mine")).status_code == 405


# --- The editor's inbox -----------------------------------------------------------------------


def draft(claim: Claim, author) -> Verdict:  # type: ignore[no-untyped-def]
    return services.verdict_draft(claim=claim, actor=author, rating="false", headline=f"Headline {claim.pk}", explanation="Why.", evidence_ids=[])


def awaiting(client: Client) -> int:
    html = client.get(reverse("claims:list")).content.decode()
    return int(re.search(r"data-awaiting-approval>(\d+)<", html).group(1))  # type: ignore[union-attr]


def test_the_inbox_lists_the_drafts_i_may_approve_not_my_own(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    other_editor = user_create_with_role(username="erin-editor", role=Role.EDITOR, password=PERSONA_PASSWORD)[0]
    by_reviewer = draft(make_claim(sentence="Rents climbed 9 percent.", status="check"), reviewer)
    by_me = draft(make_claim(sentence="Crime fell.", status="check"), editor)
    by_other = draft(make_claim(sentence="The city hired 40 officers.", status="check"), other_editor)
    # A draft I edited after a reviewer wrote it is partly mine.
    edited = draft(make_claim(sentence="Buses ran late.", status="check"), reviewer)
    edited = services.verdict_draft(claim=edited.claim, actor=editor, rating="misleading", headline="Partly.", explanation="Edited.",
                                    evidence_ids=[], expected_version=edited.version, force=True)
    approved = draft(make_claim(sentence="Taxes rose.", status="check"), reviewer)
    services.verdict_approve(verdict=approved, actor=other_editor)

    client = logged_in(editor)
    response = client.get(reverse("claims:approvals"))
    assert response.status_code == 200
    html = response.content.decode()
    listed = [int(pk) for pk in re.findall(r'<tr id="verdict-(\d+)"', html)]
    assert listed == [by_reviewer.pk, by_other.pk]  # longest waiting first
    assert by_me.pk not in listed and edited.pk not in listed and approved.pk not in listed
    assert "Rents climbed 9 percent." in html and "@rita-reviewer" in html and 'data-result-count="2"' in html
    assert awaiting(client) == 2
    # The other editor's inbox holds what they may approve: mine and the reviewer's.
    assert awaiting(logged_in(other_editor)) == 3

    # Approving one takes it out of the inbox and the count.
    services.verdict_approve(verdict=by_reviewer, actor=editor)
    assert awaiting(client) == 1
    assert [int(pk) for pk in re.findall(r'<tr id="verdict-(\d+)"', client.get(reverse("claims:approvals")).content.decode())] == [by_other.pk]


def test_a_reviewer_cannot_open_the_inbox(client: Client, reviewer, outsider, editor) -> None:  # type: ignore[no-untyped-def]
    draft(make_claim(status="check"), reviewer)
    assert logged_in(reviewer).get(reverse("claims:approvals")).status_code == 403
    assert logged_in(outsider).get(reverse("claims:approvals")).status_code == 403
    assert logged_in(editor).post(reverse("claims:approvals")).status_code == 405
    assert client.get(reverse("claims:approvals")).status_code == 302  # to the login page
    # A reviewer's navigation has "My claims" but no inbox.
    html = logged_in(reviewer).get(reverse("claims:list")).content.decode()
    assert "data-my-claims-left" in html and "data-awaiting-approval" not in html
