"""Quantities read as people write them, the same on the claim page, in the queue and in the CSV."""

import csv
import io

import pytest
from django.urls import reverse

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim
from factcheck.claims.quantities import format_quantities, format_quantity
from pipeline.nlp.quantities import parse_quantities
from tests.web.test_views import logged_in


@pytest.mark.parametrize(
    ("quantity", "shown"),
    [
        ({"value": 1.3e9, "unit": "GBP", "hedge": "exact"}, "£1.3bn"),
        ({"value": 600e6, "unit": "USD", "hedge": "exact"}, "$600m"),
        ({"value": 2.5e6, "unit": "EUR", "hedge": "exact"}, "€2.5m"),
        ({"value": 1.13e9, "unit": "USD", "hedge": "exact"}, "$1.13bn"),
        ({"value": 2e12, "unit": "USD", "hedge": "exact"}, "$2tn"),
        ({"value": 143000.0, "unit": "GBP", "hedge": "exact"}, "£143,000"),
        ({"value": 104.99, "unit": "GBP", "hedge": "exact"}, "£104.99"),
        ({"value": 5e6, "unit": "CHF", "hedge": "exact"}, "CHF 5m"),
        ({"value": 1500.0, "unit": "people", "hedge": "approximately-below"}, "under 1,500 people"),
        ({"value": 1.2e6, "unit": "people", "hedge": "approximately"}, "about 1.2 million people"),
        ({"value": 36.0, "unit": "cities", "hedge": "approximately-below"}, "under 36 cities"),
        ({"value": 500.0, "unit": "people", "hedge": "approximately-above"}, "over 500 people"),
        ({"value": 30.0, "unit": "families", "hedge": "at-most"}, "up to 30 families"),
        ({"value": 10.0, "unit": "families", "hedge": "at-least"}, "at least 10 families"),
        ({"value": 3.5, "unit": "percent", "hedge": "exact"}, "3.5%"),
        ({"value": 0.25, "unit": "percentage points", "hedge": "exact"}, "0.25 percentage points"),
        ({"value": 2 / 3, "unit": "fraction", "hedge": "exact"}, "2/3"),
        ({"value": 0.2, "unit": "fraction", "hedge": "exact"}, "1/5"),
        ({"value": 3e9, "unit": "", "hedge": "exact"}, "3 billion"),
        ({"value": 22.0, "unit": "years", "hedge": "exact"}, "22 years"),
        # A period the parser keeps singular ("five-year", "18 to 30-year-olds") reads in the plural.
        ({"value": 5.0, "unit": "year", "hedge": "exact"}, "5 years"),
        ({"value": 30.0, "unit": "year", "hedge": "at-most"}, "up to 30 years"),
        ({"value": 1.0, "unit": "year", "hedge": "exact"}, "1 year"),
        ({"text": "some", "value": None}, "some"),
        # Parsed since issue 29: the hedge as written, the whole counted noun, vague magnitudes as words.
        ({"value": 1500.0, "unit": "people", "hedge": "approximately", "hedge_text": "nearly", "noun": "people"}, "nearly 1,500 people"),
        ({"value": 100000.0, "unit": "", "hedge": "approximately", "hedge_text": "almost"}, "almost 100,000"),
        ({"value": 3.0, "unit": "mps", "hedge": "exact", "hedge_text": "", "noun": "ethnic minority MPs"}, "3 ethnic minority MPs"),
        ({"value": 6.0, "unit": "months", "hedge": "at-least", "hedge_text": "or more", "noun": "months"}, "6 months or more"),
        ({"value": 3e9, "unit": "GBP", "hedge": "approximately-above", "hedge_text": "more than", "noun": ""}, "more than £3bn"),
        ({"value": 1.3, "unit": "percent", "hedge": "exact", "hedge_text": ""}, "1.3%"),
        ({"value": 20000.0, "unit": "people", "hedge": "approximately", "noun": "old people", "low": 20000.0, "high": 100000.0,
          "magnitude": "tens of thousands"}, "tens of thousands of old people"),
        ({"value": 2e9, "unit": "USD", "hedge": "approximately", "noun": "", "low": 2e9, "high": 1e10, "magnitude": "billions"},
         "billions of dollars"),
        ({"value": 200.0, "unit": "", "hedge": "approximately", "low": 200.0, "high": 1000.0, "magnitude": "hundreds"}, "hundreds"),
        ({"value": 300.0, "unit": "people", "hedge": "approximately", "noun": "people", "low": 300.0, "high": 1000.0,
          "magnitude": "several hundred"}, "several hundred people"),
    ],
)
def test_format_quantity(quantity: dict[str, object], shown: str) -> None:
    assert format_quantity(quantity) == shown


@pytest.mark.parametrize(
    ("sentence", "shown"),
    [
        ("ICE detained nearly 1,500 people.", ["nearly 1,500 people"]),
        ("There had only been a one point three per cent fall.", ["1.3%"]),
        ("It is the scandal of tens of thousands of old people dying.", ["tens of thousands of old people"]),
        ("She was elected with three other ethnic minority MPs.", ["3 ethnic minority MPs"]),
        ("Growth was rapid in the first half of 2004.", []),
        ('He said "several hundred" people in the UK are plotting attacks.', ["several hundred people"]),
        ("A few thousand jobs went.", ["a few thousand jobs"]),
    ],
)
def test_the_issue_29_errors_read_right(sentence: str, shown: list[str]) -> None:
    assert format_quantities([q.as_dict() for q in parse_quantities(sentence)]) == shown


def test_parsed_money_reads_back_as_written() -> None:
    # business/001 of the BBC corpus: what the parser stores, shown the way the article wrote it.
    sentence = "Quarterly profits at US media giant TimeWarner jumped 76% to $1.13bn (£600m) for the three months to December."
    shown = format_quantities([q.as_dict() for q in parse_quantities(sentence)])
    assert shown == ["76%", "$1.13bn", "£600m", "3 months"]
    assert not any("e+" in text for text in shown)


@pytest.mark.django_db
def test_money_on_the_claim_page_in_the_queue_and_in_the_csv(reviewer) -> None:  # type: ignore[no-untyped-def]
    text = "Asylum costs.\n\nAnd he argued asylum cost £2bn a year for 14,000 successful applicants."
    article, _ = article_ingest(data=ArticleInput(text=text, outlet="BBC News"), batch=None)
    sentence = text.split("\n\n")[1]
    start = text.index(sentence)
    claim = Claim.objects.create(
        article=article, claim_key="b" * 40, sentence=sentence, start_offset=start, end_offset=start + len(sentence), score=0.9,
        claim_type="numeric", quantities=[q.as_dict() for q in parse_quantities(sentence)], priority=50.0,
    )
    client = logged_in(reviewer)
    detail = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    # Shown as parsed only where that reads differently from the sentence's words.
    assert '<span class="tag">£2bn</span>' in detail and "14,000 successful applicants</span>" in detail
    queue = client.get(reverse("claims:list")).content.decode()
    assert '<span class="tag qty">£2bn</span>' in queue and '<span class="tag qty">14,000 successful applicants</span>' in queue
    response = client.get(reverse("reports:claims_csv"))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8"))))
    assert [row["quantities"] for row in rows] == ["£2bn; 14,000 successful applicants"]
    for html in (detail, queue):
        assert "e+09" not in html and "GBP" not in html
