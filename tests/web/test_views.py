import pytest
from django.test import Client
from django.urls import reverse

from factcheck.articles.services import ArticleInput, article_ingest
from factcheck.claims.models import Claim
from tests.conftest import PERSONA_PASSWORD
from tests.web.test_queue import QUEUE_MAX_QUERIES

pytestmark = pytest.mark.django_db

TEXT = "Officials met on Monday.\n\nICE detained nearly 1,500 people in May. Nobody disputed it."


@pytest.fixture
def claim() -> Claim:
    article, _ = article_ingest(data=ArticleInput(text=TEXT, outlet="MassLive"), batch=None)
    start = TEXT.index("ICE")
    end = TEXT.index("May.") + 4
    return Claim.objects.create(article=article, claim_key="a" * 40, sentence=TEXT[start:end], start_offset=start, end_offset=end, score=0.8)


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


@pytest.mark.parametrize("name,args", [("claims:list", []), ("runs:list", [])])
def test_every_page_needs_login(client: Client, name: str, args: list[int]) -> None:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_claim_page_needs_login(client: Client, claim: Claim) -> None:
    response = client.get(reverse("claims:detail", args=[claim.pk]))
    assert response.status_code == 302


def test_reviewer_sees_list_and_highlighted_claim(reviewer, claim: Claim, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    # test_queue.QUEUE_MAX_QUERIES says what they are.
    with django_assert_max_num_queries(QUEUE_MAX_QUERIES):
        response = client.get(reverse("claims:list"))
    assert response.status_code == 200
    assert claim.sentence in response.content.decode()
    detail = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert '<mark class="claim" id="claim-highlight">ICE detained nearly 1,500 people in May.</mark>' in detail
    assert "Officials met on Monday." in detail


def test_outsider_gets_403_for_lists_and_404_for_claims(outsider, claim: Claim) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(outsider)
    assert client.get(reverse("claims:list")).status_code == 403
    assert client.get(reverse("claims:detail", args=[claim.pk])).status_code == 404


def test_wrong_method_is_refused(reviewer, claim: Claim) -> None:  # type: ignore[no-untyped-def]
    client = logged_in(reviewer)
    assert client.post(reverse("claims:list")).status_code == 405
    assert client.post(reverse("claims:detail", args=[claim.pk])).status_code == 405


def test_article_text_is_escaped(reviewer) -> None:  # type: ignore[no-untyped-def]
    text = "<script>alert(1)</script> The city spent $2 million on it."
    article, _ = article_ingest(data=ArticleInput(text=text), batch=None)
    start = text.index("The")
    claim = Claim.objects.create(article=article, claim_key="b" * 40, sentence=text[start:], start_offset=start, end_offset=len(text))
    page = logged_in(reviewer).get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_claim_page_lists_every_appearance_of_its_cluster(reviewer, claim: Claim, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    other_text = "Nearly 1,500 people were detained by ICE in May, officials said."
    other_article, _ = article_ingest(data=ArticleInput(text=other_text, outlet="Breitbart News"), batch=None)
    other = Claim.objects.create(
        article=other_article, claim_key="d" * 40, sentence=other_text, start_offset=0, end_offset=len(other_text), cluster_key="a" * 40,
        priority=60.5, priority_parts={"checkworthiness": 40.0, "type": 15, "spread": 5.0, "recency": 0.5, "outlets": 2},
    )
    Claim.objects.filter(pk=claim.pk).update(cluster_id="a" * 40)
    client = logged_in(reviewer)
    with django_assert_max_num_queries(10):
        page = client.get(reverse("claims:detail", args=[claim.pk])).content.decode()
    assert "Appearances (2)" in page
    assert "Breitbart News" in page and "MassLive" in page
    assert f'href="{reverse("claims:detail", args=[other.pk])}"' in page
    listing = client.get(reverse("claims:list")).content.decode()
    # One row for the cluster: its best-ranked appearance.
    assert f'id="claim-{other.pk}"' in listing and f'id="claim-{claim.pk}"' not in listing
    assert "repeated by 2 outlets +5.0" in listing


@pytest.mark.parametrize("path", ["/static/css/app.css", "/static/vendor/htmx-2.0.8.min.js"])
def test_static_assets_are_served(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert b"".join(response.streaming_content if response.streaming else [response.content])
