"""The claim as checked (issue 15, item 6): a "claim reviewed" on the verdict, prefilled with
the tidied sentence that never loses or cuts a figure, edited by the reviewer, used by the
ClaimReview export and the CSV; and a fresh install publishes as a demo while the organisation's URL is
unset or local.

Personas: reviewer (drafts verdicts), editor (approves), outsider (no role: refused).
"""

from __future__ import annotations

import csv
import io
import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Verdict
from factcheck.claims.workflow import services
from factcheck.claims.workflow.reviewed import CLAIM_REVIEWED_MAX_CHARS, claim_reviewed_default
from factcheck.publishing.services import is_local_url
from tests.conftest import PERSONA_PASSWORD, SHARED_DATA, TEST_ORG_URL
from tests.reports.claimreview_validator import assert_valid_claimreview
from tests.reports.helpers import claim_in_article, publish

pytestmark = pytest.mark.django_db

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
# The seeds' sentence today's ClaimReview cut to "...could take the shape of the…", losing the 1,500.
NEARLY_1500 = (
    "An increased federal presence around Boston could take the shape of the multi-week immigration enforcement operation ICE "
    "conducted across Massachusetts in May, during which it detained nearly 1,500 people."
)
BBC = SHARED_DATA / "bbc_news" / "bbc_news.jsonl"
NUMBER = re.compile(r"\d(?:[\d,.]*\d)?")


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def sentences_with_figures(*, bbc_articles: int = 300) -> list[str]:
    """The seeds' sentences and those of the BBC corpus's first articles that hold a number."""
    texts = [path.read_text(encoding="utf-8") for path in sorted(SEEDS.glob("*.txt"))]
    if BBC.is_file():
        with BBC.open(encoding="utf-8") as lines:
            texts += [json.loads(line)["text"] for _, line in zip(range(bbc_articles), lines, strict=False)]
    sentences = []
    for text in texts:
        sentences += re.split(r"(?<=[.!?”])\s+(?=[A-Z“])", " ".join(text.split()))
    return [sentence for sentence in sentences if NUMBER.search(sentence)]


# --- The default -----------------------------------------------------------------------------


def test_the_seeds_nearly_1500_sentence_keeps_its_figure() -> None:
    assert NEARLY_1500 in " ".join((SEEDS / "002_a4664de892463d8e.txt").read_text(encoding="utf-8").split())
    default = claim_reviewed_default(NEARLY_1500, attribution="article", quantities=["nearly 1,500 people"])
    assert default == "…during which it detained nearly 1,500 people."
    assert len(default) <= CLAIM_REVIEWED_MAX_CHARS


@pytest.mark.parametrize(
    "sentence",
    [
        'Acme said on Monday that Bolt had rejected a deal worth $8bn. "We would like to go on talking to them," the letter from Acme said.',
        'Acme said Bolt had rejected a deal worth $8bn. "We would like to go on talking to them," the letter said.',
    ],
)
def test_a_lead_that_is_its_own_claim_is_kept_with_its_figure(sentence: str) -> None:
    """Found on the BBC corpus: a reported claim before a quotation is no attribution lead-in."""
    assert "$8bn" in claim_reviewed_default(sentence)


def test_no_sentence_loses_part_of_a_figure() -> None:
    """Every number the default shows is a whole number of the sentence (no "1,5" of
    "1,500"), every default fits, and a sentence with a figure keeps one."""
    sentences = sentences_with_figures()
    assert len(sentences) >= (1000 if BBC.is_file() else 5)
    for sentence in sentences:
        default = claim_reviewed_default(sentence)
        assert len(default) <= CLAIM_REVIEWED_MAX_CHARS, sentence
        shown, whole = NUMBER.findall(default), set(NUMBER.findall(sentence))
        assert set(shown) <= whole, (sentence, default)
        assert shown, (sentence, default)


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("  ICE detained\n nearly 1,500   people. ", "ICE detained nearly 1,500 people."),
        ("“Make no mistake: ICE is going to keep doing this.”", "Make no mistake: ICE is going to keep doing this."),
        ("He said \"the numbers are wrong and we will fight it", "the numbers are wrong and we will fight it"),
        # The quotation as said: the attribution lead-in or tail dropped, the marks balanced.
        ("Lyons added, “Sanctuary does not mean safer streets.", "Sanctuary does not mean safer streets."),
        ("Lyons added, “Sanctuary does not mean safer streets.”", "Sanctuary does not mean safer streets."),
        ("“We will hire 1,500 more agents,” Lyons told the conservative talker.", "We will hire 1,500 more agents"),
        ("It means more criminal aliens out and about the neighborhood.” he said.", "It means more criminal aliens out and about the neighborhood."),
        # Words outside the quotation that say more than who spoke stay.
        (
            "The report called it “a disaster for 1,500 families” and the council agreed.",
            "The report called it “a disaster for 1,500 families” and the council…",
        ),
        ("“A,” he said, “is not B at all for us.”", "“A,” he said, “is not B at all for us.”"),
        # Apostrophes are not quotation marks.
        ("“We’re going to, as you’ve heard, flood the zone,” he explained.", "We’re going to, as you’ve heard, flood the zone"),
        # Cut at a clause boundary (before the parenthesis), both figures whole.
        (
            "Quarterly profits at US media giant TimeWarner jumped 76% to $1.13bn (£600m) for the three months to December, from $639m.",
            "Quarterly profits at US media giant TimeWarner jumped 76% to $1.13bn…",
        ),
        # No clause fits: cut between words, never between "40" and "million".
        (
            "The city has spent more than 40 million dollars on shelters in the last two fiscal years alone, officials said.",
            "The city has spent more than 40 million dollars on shelters in the last…",
        ),
        # The figure beyond the first 74 characters: the words up to it.
        (
            "Officials across the commonwealth of Massachusetts said on Tuesday in a long statement that the state spent $1.13bn on shelters",
            "…said on Tuesday in a long statement that the state spent $1.13bn…",
        ),
        # No figure: the opening of the sentence.
        (
            "The mayor, who spoke at length on Tuesday evening at the council meeting, said the plan will not work at all for anyone.",
            "The mayor, who spoke at length on Tuesday evening at the council meeting…",
        ),
    ],
)
def test_default_is_tidied_and_cut_at_clauses_never_inside_a_figure(sentence: str, expected: str) -> None:
    assert claim_reviewed_default(sentence) == expected


# --- The verdict form and the exports -----------------------------------------------------------


def test_verdict_form_starts_from_the_default_and_the_edit_is_exported(reviewer, editor, outsider) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence=NEARLY_1500, attribution="article", quantities=[{"text": "nearly 1,500 people", "value": 1500}])
    evidence = services.evidence_add(claim=claim, actor=reviewer, kind="official_statistic", url="https://www.ice.gov/statistics", title="ICE")
    client = login(reviewer)
    page = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert 'name="claim_reviewed" value="…during which it detained nearly 1,500 people."' in page

    edited = "ICE detained nearly 1,500 people in Massachusetts in May"
    form = {"rating": "mostly_true", "headline": "About right", "explanation": "ICE's May figures.", "evidence": [evidence.pk]}
    too_long = client.post(reverse("claims:verdict", args=[claim.pk]), {**form, "claim_reviewed": "x" * 75})
    assert too_long.status_code == 400 and not Verdict.objects.filter(claim=claim).exists()
    assert login(outsider).post(reverse("claims:verdict", args=[claim.pk]), {**form, "claim_reviewed": edited}).status_code in {403, 404}
    assert client.get(reverse("claims:verdict", args=[claim.pk])).status_code == 405

    assert client.post(reverse("claims:verdict", args=[claim.pk]), {**form, "claim_reviewed": f"  {edited} "}).status_code == 302
    verdict = Verdict.objects.get(claim=claim)
    assert verdict.claim_reviewed == edited
    assert AuditEvent.objects.filter(object_type="claim", object_id=claim.pk, verb="verdict.draft", actor=reviewer).exists()
    # The form shows the saved wording next time.
    assert f'name="claim_reviewed" value="{edited}"' in client.get(reverse("claims:detail", args=[claim.pk])).content.decode()

    services.verdict_approve(verdict=verdict, actor=editor, expected_version=verdict.version)
    response = client.get(reverse("publishing:jsonld", args=[claim.pk]))
    document = json.loads(response.content)
    assert document["claimReviewed"] == edited
    assert_valid_claimreview(document)
    assert document["author"]["url"] == TEST_ORG_URL
    csv_text = b"".join(client.get(reverse("reports:claims_csv")).streaming_content).decode()
    assert [row["verdict_claim_reviewed"] for row in csv.DictReader(io.StringIO(csv_text))] == [edited]


def test_left_blank_the_default_is_stored(reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    claim = claim_in_article(sentence=NEARLY_1500, attribution="article", quantities=[{"text": "nearly 1,500 people", "value": 1500}])
    verdict = publish(claim, author=reviewer, approver=editor)
    assert verdict.claim_reviewed == "…during which it detained nearly 1,500 people."
    # A revision written before the field existed: the export makes the same default.
    Verdict.objects.filter(pk=verdict.pk).update(claim_reviewed="")
    document = json.loads(login(editor).get(reverse("publishing:jsonld", args=[claim.pk])).content)
    assert document["claimReviewed"] == "…during which it detained nearly 1,500 people."
    assert_valid_claimreview(document)


# --- A fresh install publishes as a demo organisation --------------------------------------------


@pytest.mark.parametrize("org_url", ["", "http://localhost:8000/", "http://127.0.0.1:8000/", "http://[::1]/", "https://desk.example.org/"])
def test_without_a_public_organisation_url_approving_publishes_as_a_demo(org_url: str, settings, reviewer, editor) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_ORG_URL = org_url
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", attribution="reported")
    verdict = services.verdict_draft(claim=claim, actor=reviewer, rating="true", headline="Right", explanation="Yes.", force=True)
    client = login(editor)
    page = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert page.count('id="demo-organisation"') == 1 and "FACTCHECK_ORG_URL" not in page
    assert client.post(reverse("claims:verdict-review", args=[verdict.pk]), {"decision": "approve", "version": verdict.version}).status_code == 302
    verdict.refresh_from_db()
    assert verdict.status == Verdict.Status.APPROVED

    document = json.loads(Client().get(reverse("publishing:jsonld", args=[claim.pk])).content)
    assert document["author"]["url"] == "https://factcheck.example.org/" and "demo organisation" in document["author"]["description"]
    assert_valid_claimreview(document)
    out = StringIO()
    call_command("export_claimreview", "--all", "--base-url", "https://checks.example.org", stdout=out)
    assert "demo organisation" in json.loads(out.getvalue())["author"]["description"]


@pytest.mark.parametrize(
    "url,local",
    [
        ("http://localhost:8000/", True), ("https://127.0.0.1/", True), ("http://[::1]:8000/", True), ("http://0.0.0.0/", True),
        ("http://app.localhost/", True), ("", True), ("https://desk.example.org/", False), ("https://203.0.113.7/", False),
    ],
)
def test_local_urls_are_recognised(url: str, local: bool) -> None:
    assert is_local_url(url) is local
