"""ClaimReview JSON-LD: the document, the page that embeds it, the feed, the command; every
export goes through the validator, and the validator is shown to reject bad documents."""

from __future__ import annotations

import copy
import json
import re
from datetime import UTC, datetime
from io import StringIO
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.urls import reverse

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, Verdict
from factcheck.claims.workflow import services
from factcheck.claims.workflow.reviewed import claim_reviewed_default
from factcheck.reports.claimreview import BEST_RATING, RATING_MEANING, RATING_VALUE, WORST_RATING
from factcheck.settings import env_http_url
from tests.conftest import PERSONA_PASSWORD
from tests.reports.claimreview_validator import assert_valid_claimreview, claimreview_problems
from tests.reports.helpers import claim_in_article, cluster_of, publish

pytestmark = pytest.mark.django_db

QUOTE = "“We have nearly three dozen sanctuary cities that refuse to work with us,” Lyons said."
ORG = {"FACTCHECK_ORG_NAME": "Boston Desk", "FACTCHECK_ORG_URL": "https://desk.factcheck.test/", "FACTCHECK_ORG_LOGO": "https://desk.factcheck.test/logo.png"}


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def jsonld(client: Client, claim: Claim) -> dict[str, Any]:
    response = client.get(reverse("publishing:jsonld", args=[claim.pk]))
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/ld+json; charset=utf-8"
    return json.loads(response.content)


@pytest.fixture
def clustered_claim(reviewer, editor) -> Claim:  # type: ignore[no-untyped-def]
    """The same quote in three articles from two outlets; the Herald's is the first."""
    first = claim_in_article(
        sentence=QUOTE, outlet="Boston Herald", title="ICE chief: Boston police help us", url="https://herald.example/ice-chief",
        published_at=datetime(2026, 3, 4, 9, 30, tzinfo=UTC), speaker="Todd Lyons", speaker_title="Acting ICE Director",
        attribution="direct_quote", claim_type="quote",
    )
    second = claim_in_article(
        sentence=QUOTE, outlet="MassLive", title="Lyons on sanctuary cities", url="https://masslive.example/lyons",
        published_at=datetime(2026, 3, 5, 12, 0, tzinfo=UTC), speaker="Todd Lyons", speaker_title="Acting ICE Director",
        attribution="direct_quote", claim_type="quote",
    )
    third = claim_in_article(sentence=QUOTE, outlet="MassLive", speaker="Todd Lyons", attribution="direct_quote", claim_type="quote")
    cluster_of([first, second, third], first=first)
    second.refresh_from_db()
    return second


# --- the document ----------------------------------------------------------------------------


@override_settings(**ORG)
def test_published_verdict_exports_a_valid_complete_claimreview(clustered_claim, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    verdict = publish(clustered_claim, author=reviewer, approver=editor, rating="mostly_false")
    document = jsonld(login(reviewer), clustered_claim)
    page_url = f"http://testserver/factchecks/{clustered_claim.pk}/"
    assert_valid_claimreview(document, page_url=page_url)

    assert document["url"] == page_url
    assert document["claimReviewed"] == "We have nearly three dozen sanctuary cities that refuse to work with us"
    assert document["author"] == {
        "@type": "Organization", "name": "Boston Desk", "url": "https://desk.factcheck.test/",
        "logo": {"@type": "ImageObject", "url": "https://desk.factcheck.test/logo.png"},
    }
    verdict.refresh_from_db()
    assert document["datePublished"] == verdict.approved_at.isoformat(timespec="seconds")
    assert document["reviewRating"] == {
        "@type": "Rating", "ratingValue": 2, "bestRating": 5, "worstRating": 1, "alternateName": "Mostly false",
        "name": "Mostly false", "ratingExplanation": "Arrests were lower than claimed",
    }
    claim = document["itemReviewed"]
    assert claim["author"] == {"@type": "Person", "name": "Todd Lyons", "jobTitle": "Acting ICE Director"}
    # Every article of the cluster, first seen first; the claim dates from its first appearance.
    assert [item.get("url") for item in claim["appearance"]] == ["https://herald.example/ice-chief", "https://masslive.example/lyons", None]
    assert claim["appearance"][0] == {
        "@type": "NewsArticle", "headline": "ICE chief: Boston police help us", "url": "https://herald.example/ice-chief",
        "datePublished": "2026-03-04T09:30:00+00:00", "publisher": {"@type": "Organization", "name": "Boston Herald"},
    }
    assert claim["firstAppearance"] == claim["appearance"][0]
    assert claim["datePublished"] == "2026-03-04T09:30:00+00:00"


@pytest.mark.parametrize("rating", [value for value, _ in Verdict.Rating.choices])
def test_every_rating_exports_valid_on_the_documented_scale(rating: str, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="Boston has 4,000 fewer police officers than in 2010.", speaker="Josh Kraft", attribution="reported")
    publish(claim, author=reviewer, approver=editor, rating=rating)
    document = jsonld(login(editor), claim)
    assert_valid_claimreview(document)
    assert document["reviewRating"]["alternateName"] == Verdict.Rating(rating).label
    assert document["reviewRating"]["ratingValue"] == RATING_VALUE[rating]
    assert (document["reviewRating"]["worstRating"], document["reviewRating"]["bestRating"]) == (WORST_RATING, BEST_RATING)


def test_scale_orders_the_truth_ratings_and_documents_every_rating() -> None:
    order = ["false", "mostly_false", "half_true", "mostly_true", "true"]
    assert [RATING_VALUE[r] for r in order] == [1, 2, 3, 4, 5]
    assert set(RATING_VALUE) == set(RATING_MEANING) == set(Verdict.Rating.values)


def test_claim_reviewed_is_short_and_has_no_rating() -> None:
    assert claim_reviewed_default(QUOTE, attribution="direct_quote") == "We have nearly three dozen sanctuary cities that refuse to work with us"
    long = "The city has spent more than 40 million dollars on shelters in the last two fiscal years alone, officials said."
    short = claim_reviewed_default(long, attribution="reported")
    assert len(short) < 75 and short.endswith("…") and long.startswith(short[:-1])
    assert claim_reviewed_default("  ICE detained\n nearly 1,500   people. ") == "ICE detained nearly 1,500 people."
    # A quote that is only a fragment of the sentence keeps the whole sentence.
    assert claim_reviewed_default("Wu called the raids “deeply troubling” and vowed to respond in court.", attribution="direct_quote").startswith("Wu called")


def test_article_assertion_is_attributed_to_its_author_or_outlet(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    by_author = claim_in_article(sentence="Crime fell 12 percent in Boston last year.", author="Jane Doe", speaker="MassLive", attribution="article")
    by_outlet = claim_in_article(sentence="Arrests rose 30 percent in the state.", outlet="WBUR", speaker="WBUR", attribution="article")
    publish(by_author, author=reviewer, approver=editor)
    publish(by_outlet, author=reviewer, approver=editor)
    client = login(reviewer)
    assert jsonld(client, by_author)["itemReviewed"]["author"] == {"@type": "Person", "name": "Jane Doe"}
    assert jsonld(client, by_outlet)["itemReviewed"]["author"] == {"@type": "Organization", "name": "WBUR"}
    assert_valid_claimreview(jsonld(client, by_outlet))


def test_revisions_the_published_one_stays_until_the_next_is_approved(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", speaker="Todd Lyons", attribution="reported")
    first = publish(claim, author=reviewer, approver=editor, rating="false", headline="No, it was 1,100")
    claim.refresh_from_db()
    draft = services.verdict_draft(claim=claim, actor=reviewer, rating="mostly_false", headline="Closer to 1,100", explanation="Revised.")
    client = login(reviewer)
    document = jsonld(client, claim)
    assert (document["reviewRating"]["alternateName"], document["headline"]) == ("False", "No, it was 1,100")

    services.verdict_approve(verdict=draft, actor=editor, expected_version=draft.version)
    first.refresh_from_db()
    draft.refresh_from_db()
    document = jsonld(client, claim)
    assert (document["reviewRating"]["alternateName"], document["headline"]) == ("Mostly false", "Closer to 1,100")
    assert document["datePublished"] == first.approved_at.isoformat(timespec="seconds")
    assert document["dateModified"] == draft.approved_at.isoformat(timespec="seconds")
    assert_valid_claimreview(document)


def test_no_claimreview_before_approval(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    services.claim_assign(claim=claim, actor=reviewer, assignee=reviewer)
    verdict = services.verdict_draft(claim=claim, actor=reviewer, rating="false", headline="h", explanation="e")
    client = login(editor)
    assert client.get(reverse("publishing:jsonld", args=[claim.pk])).status_code == 404
    services.verdict_return(verdict=verdict, actor=editor, comment="Source?")
    assert client.get(reverse("publishing:page", args=[claim.pk])).status_code == 404
    assert client.get(reverse("publishing:jsonld", args=[999_999])).status_code == 404


# --- the page, access, and what an export does not do --------------------------------------------


def test_page_embeds_the_same_claimreview_safely(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", speaker="Todd Lyons", attribution="reported")
    publish(claim, author=reviewer, approver=editor, explanation="See </script><script>alert(1)</script> & the data.")
    client = login(reviewer)
    response = client.get(reverse("publishing:page", args=[claim.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    scripts = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S)
    assert len(scripts) == 1
    embedded = json.loads(scripts[0])
    assert embedded == jsonld(client, claim)
    assert embedded["reviewBody"].startswith("See </script>")
    assert_valid_claimreview(embedded, page_url=f"http://testserver/factchecks/{claim.pk}/")
    assert "Mostly false" in html and "ICE statistics" in html and "alert(1)</script>" not in html


def test_published_verdicts_are_public_and_nothing_else_is(reviewer, editor, admin_user, outsider) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    publish(claim, author=reviewer, approver=editor)
    unpublished = claim_in_article(sentence="Boston has 4,000 fewer officers.")
    urls = [reverse("publishing:jsonld", args=[claim.pk]), reverse("publishing:page", args=[claim.pk]), reverse("publishing:feed")]
    for client in (login(reviewer), login(editor), login(admin_user), login(outsider), Client()):
        for url in urls:
            assert client.get(url).status_code == 200, url
        assert client.get(reverse("publishing:jsonld", args=[unpublished.pk])).status_code == 404
        assert client.get(reverse("publishing:page", args=[unpublished.pk])).status_code == 404
    for url in urls:
        assert login(reviewer).post(url).status_code == 405
    # Nothing else opens up.
    anonymous = Client()
    assert anonymous.get(reverse("claims:detail", args=[claim.pk])).status_code == 302
    assert anonymous.get(reverse("reports:claims_csv")).status_code == 302
    claim_page = login(reviewer).get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert f'href="{urls[1]}"' in claim_page and f'href="{urls[0]}"' in claim_page


def test_the_public_base_url_is_the_review_url(settings, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_PUBLIC_BASE_URL = "https://checks.example.org"
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    publish(claim, author=reviewer, approver=editor)
    document = json.loads(Client().get(reverse("publishing:jsonld", args=[claim.pk])).content)
    assert document["url"] == f"https://checks.example.org/factchecks/{claim.pk}/"
    assert_valid_claimreview(document)


def test_reading_exports_writes_nothing(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    publish(claim, author=reviewer, approver=editor)
    claim.refresh_from_db()
    events = AuditEvent.objects.count()
    client = login(reviewer)
    for name in ("publishing:jsonld", "publishing:page"):
        client.get(reverse(name, args=[claim.pk]))
    b"".join(client.get(reverse("publishing:feed")).streaming_content)
    version = claim.cluster.version
    claim.refresh_from_db()
    assert (claim.cluster.version, AuditEvent.objects.count()) == (version, events)


# --- the feed --------------------------------------------------------------------------------


def feed(client: Client, query: str = "") -> dict[str, Any]:
    response = client.get(reverse("publishing:feed") + query)
    assert response.status_code == 200 and response.streaming
    return json.loads(b"".join(response.streaming_content))


def test_feed_streams_every_published_verdict_valid(clustered_claim, reviewer, editor, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    published = [clustered_claim] + [
        claim_in_article(sentence=f"Officers made {n} arrests in sweep number {n}.", speaker="Todd Lyons", attribution="reported") for n in range(2, 7)
    ]
    for claim in published:
        publish(claim, author=reviewer, approver=editor)
    claim_in_article(sentence="A claim nobody checked, with 12 numbers.")
    client = login(reviewer)
    client.get("/")  # the session and the role are loaded before counting
    with override_settings(FACTCHECK_EXPORT_CHUNK_ROWS=2), django_assert_max_num_queries(14):
        document = feed(client)
    assert document["@context"] == "https://schema.org"
    graph = document["@graph"]
    assert sorted(int(item["url"].rstrip("/").rsplit("/", 1)[1]) for item in graph) == sorted(claim.pk for claim in published)
    for item in graph:
        assert_valid_claimreview({"@context": document["@context"], **item})


def test_feed_since_and_bad_since(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    old = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    new = claim_in_article(sentence="Boston has 4,000 fewer officers than in 2010.")
    publish(old, author=reviewer, approver=editor)
    Verdict.objects.filter(claim=old).update(approved_at=datetime(2026, 1, 10, tzinfo=UTC))
    publish(new, author=reviewer, approver=editor)
    client = login(reviewer)
    urls = [item["url"] for item in feed(client, "?since=2026-02-01")["@graph"]]
    assert urls == [f"http://testserver/factchecks/{new.pk}/"]
    assert len(feed(client, "?since=2026-01-01T00:00:00Z")["@graph"]) == 2
    response = client.get(reverse("publishing:feed") + "?since=last-week")
    assert response.status_code == 400 and b"ISO 8601" in response.content


# --- the command line ------------------------------------------------------------------------


def test_command_prints_a_valid_claimreview(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", speaker="Todd Lyons", attribution="reported")
    verdict = publish(claim, author=reviewer, approver=editor)
    out = StringIO()
    call_command("export_claimreview", "--verdict", str(verdict.pk), "--base-url", "https://checks.example.org", stdout=out)
    document = json.loads(out.getvalue())
    assert document["url"] == f"https://checks.example.org/factchecks/{claim.pk}/"
    assert_valid_claimreview(document)
    out = StringIO()
    call_command("export_claimreview", "--all", "--base-url", "https://checks.example.org", stdout=out)
    assert [json.loads(line)["url"] for line in out.getvalue().splitlines()] == [document["url"]]
    with pytest.raises(CommandError, match="base-url"):
        call_command("export_claimreview", "--claim", str(claim.pk))
    with pytest.raises(CommandError, match="no approved verdict"):
        call_command("export_claimreview", "--claim", "999999", "--base-url", "https://x.example")


def test_organisation_settings_fail_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in ("desk.example.org", "ftp://desk.example.org", "https://"):
        monkeypatch.setenv("X_URL", bad)
        with pytest.raises(ImproperlyConfigured):
            env_http_url("X_URL", "https://ok.example")
    monkeypatch.setenv("X_URL", "")
    assert env_http_url("X_URL", "", required=False) == ""
    with pytest.raises(ImproperlyConfigured):
        env_http_url("X_URL", "")


# --- the validator rejects what Google would not take ------------------------------------------

VALID: dict[str, Any] = {
    "@context": "https://schema.org",
    "@type": "ClaimReview",
    "url": "https://desk.factcheck.test/factchecks/1/",
    "claimReviewed": "ICE detained nearly 1,500 people in May",
    "datePublished": "2026-03-06T10:00:00+00:00",
    "author": {"@type": "Organization", "name": "Boston Desk", "url": "https://desk.factcheck.test/"},
    "reviewRating": {"@type": "Rating", "ratingValue": 2, "bestRating": 5, "worstRating": 1, "alternateName": "Mostly false", "name": "Mostly false"},
    "itemReviewed": {
        "@type": "Claim",
        "author": {"@type": "Person", "name": "Todd Lyons", "jobTitle": "Acting ICE Director"},
        "datePublished": "2026-03-04T09:30:00+00:00",
        "appearance": [
            {"@type": "NewsArticle", "url": "https://herald.example/a", "headline": "A", "datePublished": "2026-03-04T09:30:00+00:00"},
            "https://masslive.example/b",
        ],
        "firstAppearance": {"@type": "NewsArticle", "url": "https://herald.example/a", "headline": "A", "datePublished": "2026-03-04T09:30:00+00:00"},
    },
}


def mutate(path: str, value: Any) -> dict[str, Any]:
    """A copy of VALID with the property at `path` ("a.b.c") set to `value` (None removes it)."""
    document = copy.deepcopy(VALID)
    *parents, last = path.split(".")
    node = document
    for name in parents:
        node = node[name]
    if value is None:
        del node[last]
    else:
        node[last] = value
    return document


def test_validator_accepts_the_reference_document() -> None:
    assert claimreview_problems(VALID, page_url="https://desk.factcheck.test/factchecks/1/") == []


@pytest.mark.parametrize(
    ("path", "value", "problem"),
    [
        ("claimReviewed", None, "missing required property claimReviewed"),
        ("url", None, "missing required property url"),
        ("reviewRating", None, "missing required property reviewRating"),
        ("reviewRating.alternateName", None, "missing required property alternateName"),
        ("author", None, "missing recommended property author"),
        ("datePublished", None, "missing recommended property datePublished"),
        ("itemReviewed", None, "missing recommended property itemReviewed"),
        ("itemReviewed.appearance", None, "missing recommended property appearance"),
        ("itemReviewed.firstAppearance", None, "missing recommended property firstAppearance"),
        ("itemReviewed.author", None, "missing recommended property author"),
        ("itemReviewed.datePublished", None, "missing recommended property datePublished"),
        ("itemReviewed.datePublished", "2026-03-05T09:30:00+00:00", "is not its earliest appearance's date"),
        ("itemReviewed.appearance", ["https://masslive.example/b"], "though no appearance has a date of its own"),
        ("reviewRating.ratingValue", None, "missing recommended property ratingValue"),
        ("reviewRating.bestRating", None, "missing recommended property bestRating"),
        ("reviewRating.worstRating", None, "missing recommended property worstRating"),
        ("reviewRating.name", None, "missing recommended property name"),
        ("claimReviewed", "x" * 75, "Google asks for under 75"),
        ("claimReviewed", "False: ICE detained nearly 1,500 people", "carries the rating"),
        ("claimReviewed", "ICE detained nearly 1,500 people (Mostly false)", "carries the rating"),
        ("reviewRating.ratingValue", 6, "outside [1, 5]"),
        ("reviewRating.ratingValue", "2", "not a valid number"),
        ("reviewRating.worstRating", 5, "must be below bestRating"),
        ("reviewRating.name", "False", "disagree"),
        ("url", "/factchecks/1/", "not a valid url"),
        ("datePublished", "6 March 2026", "not a valid date"),
        ("datePublished", "2026-03-06T10:00:00", "not a valid date"),
        ("@context", "https://example.org/vocab", "schema.org context"),
        ("author", {"@type": "Thing", "name": "Boston Desk"}, "Thing where schema.org expects"),
        ("author", {"@type": "Organization"}, "needs a name"),
        ("itemReviewed", {"@type": "CreativeWork", "datePublished": "2026-03-04"}, "CreativeWork where schema.org expects Claim"),
        ("itemReviewed.author", {"@type": "Organization", "name": "ICE", "jobTitle": "Agency"}, "not a schema.org property of Organization"),
        ("itemReviewed.appearance", [{"@type": "Person", "name": "x"}], "Person where schema.org expects"),
        ("itemReviewed.appearance", [], "an empty list"),
        ("reviewRating", {"@type": "Review", "alternateName": "False"}, "unknown or unsupported schema.org type"),
        ("reviewRating.ratingScore", 2, "not a schema.org property of Rating"),
        ("reviewRating.alternateName", "", "not a valid text"),
    ],
)
def test_validator_rejects(path: str, value: Any, problem: str) -> None:
    problems = claimreview_problems(mutate(path, value))
    assert any(problem in p for p in problems), problems


def test_validator_rejects_a_foreign_domain_and_a_wrong_root() -> None:
    assert any("not the page's domain" in p for p in claimreview_problems(VALID, page_url="https://other.example/x"))
    assert claimreview_problems(mutate("@type", "Review")) == ["@type: 'Review', expected ClaimReview"]
    assert claimreview_problems([VALID]) == ["the document is not a JSON object"]
