"""Public fact-check pages (issue 30, items 2 and 3): each published verdict's page without
login, with everything a reader needs and nothing staff-only; corrections at the same URL;
the index, the Atom feed and the ClaimReview feed our own library importer reads back; and
for every rating, the exact ClaimReview.

Personas: reviewer (writes), editor (approves), anonymous (reads the public pages).
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from factcheck.articles.htmltext import html_to_document
from factcheck.articles.rows import parse_published_at
from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Claim, Verdict
from factcheck.claims.workflow import services
from factcheck.factchecks.models import FactCheck
from factcheck.publishing.models import Organisation
from tests.conftest import PERSONA_PASSWORD
from tests.reports.claimreview_validator import assert_valid_claimreview
from tests.reports.helpers import claim_in_article, cluster_of, publish

pytestmark = pytest.mark.django_db

QUOTE = "Lyons added, “Sanctuary does not mean safer streets."
HERALD_DATE = datetime(2026, 3, 4, 9, 30, tzinfo=UTC)
ATOM = "{http://www.w3.org/2005/Atom}"


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def embedded_jsonld(html: str) -> dict[str, Any]:
    scripts = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S)
    assert len(scripts) == 1
    return json.loads(scripts[0])


@pytest.fixture
def quoted(reviewer) -> Claim:  # type: ignore[no-untyped-def]
    """The seeds' Lyons quote in two articles: the Herald's with its own date, the other without."""
    first = claim_in_article(
        sentence=QUOTE, outlet="Boston Herald", title="ICE chief: Boston police help us", url="https://herald.example/ice-chief",
        published_at=HERALD_DATE, speaker="Todd Lyons", speaker_title="Acting ICE Director", attribution="direct_quote",
    )
    second = claim_in_article(sentence=QUOTE, outlet="MassLive", speaker="Todd Lyons", speaker_title="Acting ICE Director", attribution="direct_quote")
    cluster_of([first, second], first=first)
    first.refresh_from_db()
    return first


def test_the_public_page_shows_the_fact_check_without_login_and_nothing_staff_only(quoted: Claim, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    services.claim_assign(claim=quoted, actor=reviewer, assignee=reviewer)
    services.annotation_add(claim=quoted, actor=reviewer, body="STAFF-NOTE: call the press office back")
    evidence = services.evidence_add(
        claim=quoted, actor=reviewer, kind="official_statistic", url="https://www.ice.gov/statistics", title="ICE statistics", note="STAFF-EVIDENCE-NOTE"
    )
    written = services.verdict_draft(
        claim=quoted, actor=reviewer, rating="misleading", headline="No figure shows that", explanation="ICE's own May figures show **1,100** arrests.",
        evidence_ids=[evidence.pk],
    )
    verdict = services.verdict_approve(verdict=written, actor=editor, expected_version=written.version)
    # A newer draft, returned with a comment: neither may show.
    draft = services.verdict_draft(claim=quoted, actor=reviewer, rating="false", headline="DRAFT-HEADLINE", explanation="DRAFT-BODY", force=True)
    services.verdict_return(verdict=draft, actor=editor, comment="REVIEW-COMMENT")

    response = Client().get(reverse("publishing:page", args=[quoted.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "Sanctuary does not mean safer streets." in text and "Lyons added" not in text
    assert "Todd Lyons, Acting ICE Director" in text
    assert "Misleading" in text and "No figure shows that" in text and "own May figures show 1,100 arrests" in text
    assert 'href="https://www.ice.gov/statistics"' in html
    # Every appearance: outlet, headline, link, its own date (or that it is unknown).
    assert 'href="https://herald.example/ice-chief"' in html and "ICE chief: Boston police help us" in text and "Boston Herald · 4 March 2026" in text
    assert "MassLive · date unknown" in text
    approved = verdict.approved_at
    assert approved is not None and f"published {approved.day} {approved:%B %Y}" in text
    staff_only = ("STAFF-NOTE", "STAFF-EVIDENCE-NOTE", "DRAFT-HEADLINE", "DRAFT-BODY", "REVIEW-COMMENT", reviewer.username, editor.username)
    for secret in (*staff_only, "Log out", "/claims/"):
        assert secret not in html, secret
    document = embedded_jsonld(html)
    assert document == json.loads(Client().get(reverse("publishing:jsonld", args=[quoted.pk])).content)
    assert_valid_claimreview(document, page_url=f"http://testserver/factchecks/{quoted.pk}/")
    assert document["claimReviewed"] == "Sanctuary does not mean safer streets."

    # Credited when the organisation says so, and only then.
    Organisation.objects.filter(pk=1).update(credit_reviewers=True)
    credited = Client().get(reverse("publishing:page", args=[quoted.pk])).content.decode()
    assert f"Written by {reviewer.username}, approved by {editor.username}" in credited


def test_a_correction_keeps_the_url_and_shows_what_changed(quoted: Claim, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    first = publish(quoted, author=reviewer, approver=editor, rating="false", headline="No such surge")
    Verdict.objects.filter(pk=first.pk).update(approved_at=datetime(2026, 3, 6, 10, 0, tzinfo=UTC))
    url = reverse("publishing:page", args=[quoted.pk])
    assert "Corrections" not in Client().get(url).content.decode()
    publish(quoted, author=reviewer, approver=editor, rating="unverifiable", headline="Too early to tell")
    response = Client().get(url)
    assert response.status_code == 200
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))
    assert "Corrections" in text and "it rated the claim False : “No such surge”" in text
    assert "Too early to tell" in text and "Unverifiable" in text
    document = embedded_jsonld(response.content.decode())
    assert (document["reviewRating"]["alternateName"], document["url"]) == ("Unverifiable", f"http://testserver{url}")
    assert document["datePublished"] == "2026-03-06T10:00:00+00:00" < document["dateModified"]
    assert "On 6 March 2026" not in text and "From 6 March 2026 it rated the claim" in text


def test_unpublished_claims_have_no_public_page(reviewer) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.")
    services.claim_assign(claim=claim, actor=reviewer, assignee=reviewer)
    services.verdict_draft(claim=claim, actor=reviewer, rating="false", headline="h", explanation="e")
    anonymous = Client()
    assert anonymous.get(reverse("publishing:page", args=[claim.pk])).status_code == 404
    assert anonymous.get(reverse("publishing:jsonld", args=[claim.pk])).status_code == 404
    assert "Nothing published yet" in anonymous.get(reverse("publishing:index")).content.decode()
    for name in ("publishing:index", "publishing:atom", "publishing:feed"):
        assert anonymous.post(reverse(name)).status_code == 405


def test_index_and_atom_feed_list_published_fact_checks_at_the_public_base_url(settings, quoted: Claim, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_PUBLIC_BASE_URL = "https://checks.desk.test"
    other = claim_in_article(sentence="Boston has 4,000 fewer police officers than in 2010.", speaker="Michelle Wu", attribution="reported")
    publish(quoted, author=reviewer, approver=editor, headline="First one")
    publish(other, author=reviewer, approver=editor, headline="Second one")
    draft = claim_in_article(sentence="A claim only drafted, with 12 numbers.")
    services.claim_assign(claim=draft, actor=reviewer, assignee=reviewer)
    services.verdict_draft(claim=draft, actor=reviewer, rating="false", headline="UNPUBLISHED", explanation="e")
    events = AuditEvent.objects.count()

    index = Client().get(reverse("publishing:index")).content.decode()
    assert index.index("Second one") < index.index("First one") and "UNPUBLISHED" not in index
    assert '<link rel="canonical" href="https://checks.desk.test/factchecks/">' in index

    response = Client().get(reverse("publishing:atom"))
    assert response.status_code == 200 and response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    entries = feed.findall(f"{ATOM}entry")
    links = [entry.find(f"{ATOM}link").get("href") for entry in entries]  # type: ignore[union-attr]
    assert links == [f"https://checks.desk.test/factchecks/{other.pk}/", f"https://checks.desk.test/factchecks/{quoted.pk}/"]
    titles = [entry.findtext(f"{ATOM}title") for entry in entries]
    assert titles[1] == "Mostly false: Sanctuary does not mean safer streets."
    assert AuditEvent.objects.count() == events  # reading writes nothing


def test_the_claimreview_feed_imports_back_into_a_library(settings, quoted: Claim, reviewer, editor, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_ORG_NAME = "Desk A"
    settings.FACTCHECK_PUBLIC_BASE_URL = "https://desk-a.test"
    publish(quoted, author=reviewer, approver=editor, rating="half_true", headline="Half of it")
    feed = b"".join(Client().get(reverse("publishing:feed")).streaming_content)  # type: ignore[attr-defined]
    path = tmp_path / "desk-a.jsonld"
    path.write_bytes(feed)
    out, err = io.StringIO(), io.StringIO()
    call_command("import_factchecks", str(path), stdout=out, stderr=err)
    assert "1 rows read, 1 new" in out.getvalue()
    imported = FactCheck.objects.get(source=FactCheck.Source.IMPORTED)
    assert (imported.publisher, imported.rating_text, imported.rating_value, imported.claim, imported.url) == (
        "Desk A", "Half true", 3, "Sanctuary does not mean safer streets.", f"https://desk-a.test/factchecks/{quoted.pk}/"
    )


@pytest.mark.parametrize("rating", Verdict.Rating.values)
def test_every_rating_exports_every_field(quoted: Claim, rating: str, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    verdict = publish(quoted, author=reviewer, approver=editor, rating=rating, headline="What the figures show")
    organisation = Organisation.objects.get()
    document = json.loads(Client().get(reverse("publishing:jsonld", args=[quoted.pk])).content)
    page_url = f"http://testserver/factchecks/{quoted.pk}/"
    assert_valid_claimreview(document, page_url=page_url)
    label = str(Verdict.Rating(rating).label)
    assert document["url"] == page_url
    assert document["claimReviewed"] == "Sanctuary does not mean safer streets."
    assert document["author"] == {"@type": "Organization", "name": organisation.name, "url": organisation.url}
    assert document["datePublished"] == verdict.approved_at.isoformat(timespec="seconds")  # type: ignore[union-attr]
    assert document["reviewRating"] == {
        "@type": "Rating", "ratingValue": organisation.rating_value(rating), "bestRating": 5, "worstRating": 1,
        "alternateName": label, "name": label, "ratingExplanation": "What the figures show",
    }
    claim = document["itemReviewed"]
    assert claim["author"] == {"@type": "Person", "name": "Todd Lyons", "jobTitle": "Acting ICE Director"}
    herald = {
        "@type": "NewsArticle", "headline": "ICE chief: Boston police help us", "url": "https://herald.example/ice-chief",
        "datePublished": "2026-03-04T09:30:00+00:00", "publisher": {"@type": "Organization", "name": "Boston Herald"},
    }
    assert claim["appearance"][0] == herald and claim["firstAppearance"] == herald
    # The second article has no date of its own: none is invented (not its import time).
    assert "datePublished" not in claim["appearance"][1] and claim["appearance"][1]["publisher"] == {"@type": "Organization", "name": "MassLive"}
    assert claim["datePublished"] == "2026-03-04T09:30:00+00:00"


def test_the_claim_has_no_date_when_no_article_has_one(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", speaker="ICE", attribution="reported")
    publish(claim, author=reviewer, approver=editor)
    document = json.loads(Client().get(reverse("publishing:jsonld", args=[claim.pk])).content)
    assert "datePublished" not in document["itemReviewed"] and "datePublished" not in document["itemReviewed"]["appearance"][0]
    assert_valid_claimreview(document)


def test_a_relabelled_scale_is_what_the_exports_say(quoted: Claim, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    publish(quoted, author=reviewer, approver=editor, rating="misleading")
    organisation = Organisation.objects.get()
    organisation.rating_scale = {**organisation.rating_scale, "misleading": {"label": "Misleading framing", "value": 3}}
    organisation.save()
    document = json.loads(Client().get(reverse("publishing:jsonld", args=[quoted.pk])).content)
    assert (document["reviewRating"]["alternateName"], document["reviewRating"]["ratingValue"]) == ("Misleading framing", 3)
    assert_valid_claimreview(document)


def test_withdrawing_keeps_the_url_says_why_and_leaves_the_feeds(quoted: Claim, reviewer, editor, outsider) -> None:  # type: ignore[no-untyped-def]
    publish(quoted, author=reviewer, approver=editor, rating="false", headline="No such surge")
    withdraw = reverse("publishing:withdraw", args=[quoted.pk])
    assert login(reviewer).post(withdraw, {"reason": "x"}).status_code == 403
    assert login(outsider).post(withdraw, {"reason": "x"}).status_code == 403
    assert Client().post(withdraw, {"reason": "x"}).status_code == 302  # to the login page
    assert login(editor).get(withdraw).status_code == 405
    assert login(editor).post(withdraw, {"reason": "  "}).status_code == 400
    assert f'action="/factchecks/{quoted.pk}/withdraw/"' in login(editor).get(reverse("claims:detail", args=[quoted.pk])).content.decode()

    response = login(editor).post(withdraw, {"reason": "The quote was misattributed."})
    assert response.status_code == 302 and response["Location"] == reverse("claims:detail", args=[quoted.pk])
    event = AuditEvent.objects.get(object_type="claim", object_id=quoted.pk, verb="verdict.withdraw")
    assert (event.actor, event.comment) == (editor, "The quote was misattributed.")
    assert login(editor).post(withdraw, {"reason": "Again"}).status_code == 409

    page = Client().get(reverse("publishing:page", args=[quoted.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="withdrawn"' in html and "The quote was misattributed." in html and "application/ld+json" not in html
    gone = Client().get(reverse("publishing:jsonld", args=[quoted.pk]))
    assert gone.status_code == 410 and b"misattributed" in gone.content
    feed = json.loads(b"".join(Client().get(reverse("publishing:feed")).streaming_content))  # type: ignore[attr-defined]
    assert feed["@graph"] == []
    atom = ET.fromstring(Client().get(reverse("publishing:atom")).content)
    assert [entry.findtext(f"{ATOM}title") for entry in atom.findall(f"{ATOM}entry")] == ["Withdrawn: Sanctuary does not mean safer streets."]

    # A later approved revision publishes again at the same URL.
    publish(quoted, author=reviewer, approver=editor, rating="unverifiable", headline="Too early to tell")
    html = Client().get(reverse("publishing:page", args=[quoted.pk])).content.decode()
    assert 'id="withdrawn"' not in html and embedded_jsonld(html)["reviewRating"]["alternateName"] == "Unverifiable"


def test_an_appearance_is_dated_from_the_pages_meta_tags(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    """The date comes from the article's metadata as the import reads it (here a page's meta
    tags, factcheck/articles/htmltext.py), never from when it was imported."""
    page = (
        '<html><head><title>ICE chief: Boston police help us</title>'
        '<meta property="article:published_time" content="2026-03-04T09:30:00Z">'
        '<meta property="og:url" content="https://herald.example/ice-chief"></head>'
        "<body><article><p>Lyons added, “Sanctuary does not mean safer streets.</p></article></body></html>"
    )
    document = html_to_document(page)
    claim = claim_in_article(
        sentence=QUOTE, outlet="Boston Herald", title=document.title, url=document.url, published_at=parse_published_at(document.published_at),
        speaker="Todd Lyons", attribution="direct_quote",
    )
    publish(claim, author=reviewer, approver=editor)
    review = json.loads(Client().get(reverse("publishing:jsonld", args=[claim.pk])).content)
    appearance = review["itemReviewed"]["appearance"][0]
    assert (appearance["url"], appearance["headline"], appearance["datePublished"]) == (
        "https://herald.example/ice-chief", "ICE chief: Boston police help us", "2026-03-04T09:30:00+00:00"
    )
    assert review["itemReviewed"]["datePublished"] == "2026-03-04T09:30:00+00:00"
    assert_valid_claimreview(review)
