"""The organisation (issue 30, item 1): seeded from the environment, a demo until an admin
names it on an audited page; the demo is flagged on staff pages and in the exports.

Personas: admin (edits the organisation), editor and reviewer (403 there; they see the demo
banner), outsider (no role: 403), anonymous (the login page).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from factcheck.audit.models import AuditEvent
from factcheck.claims.models import Verdict
from factcheck.publishing.models import Organisation
from factcheck.publishing.selectors import organisation_current
from factcheck.publishing.services import DEMO_URL
from tests.conftest import PERSONA_PASSWORD, TEST_ORG_URL
from tests.reports.claimreview_validator import assert_valid_claimreview
from tests.reports.helpers import claim_in_article, publish

pytestmark = pytest.mark.django_db

URL = reverse("publishing:organisation")


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PERSONA_PASSWORD)
    return client


def form_data(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Boston Desk", "url": "https://bostondesk.news/", "public_base_url": "https://checks.bostondesk.news/",
        "logo_url": "https://bostondesk.news/logo.png", "publisher_name": "Boston Desk Media", "credit_reviewers": "",
    }
    for rating, label in Verdict.Rating.choices:
        data[f"label_{rating}"] = str(label)
        data[f"value_{rating}"] = {"true": 5, "mostly_true": 4, "half_true": 3, "unverifiable": 3}.get(rating, 2 if rating != "false" else 1)
    data.update(overrides)
    return data


def test_a_fresh_install_seeds_a_demo_from_the_environment_once(settings) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_ORG_URL = ""
    settings.FACTCHECK_ORG_NAME = "Fresh desk"
    assert not Organisation.objects.exists()
    organisation = organisation_current()
    assert (organisation.name, organisation.url, organisation.is_demo) == ("Fresh desk", DEMO_URL, True)
    assert organisation.rating_label("mostly_false") == "Mostly false" and organisation.rating_value("mostly_false") == 2
    settings.FACTCHECK_ORG_NAME = "Changed later"
    assert organisation_current().name == "Fresh desk"  # the environment only seeds it
    seed = AuditEvent.objects.get(object_type="organisation", verb="organisation.seed")
    assert seed.after["is_demo"] is True and seed.actor is None


def test_a_public_organisation_url_seeds_a_real_one(settings) -> None:  # type: ignore[no-untyped-def]
    organisation = organisation_current()
    assert (organisation.url, organisation.is_demo) == (TEST_ORG_URL, False)


def test_the_demo_is_flagged_on_staff_pages_and_in_exports_until_an_admin_names_it(settings, reviewer, editor, admin_user) -> None:  # type: ignore[no-untyped-def]
    settings.FACTCHECK_ORG_URL = ""
    claim = claim_in_article(sentence="ICE detained nearly 1,500 people in May.", speaker="Todd Lyons", attribution="reported")
    publish(claim, author=reviewer, approver=editor)  # a fresh install approves and publishes
    for user in (reviewer, editor, admin_user):
        page = login(user).get(reverse("claims:list")).content.decode()
        assert page.count('id="demo-organisation"') == 1
    document = json.loads(Client().get(reverse("publishing:jsonld", args=[claim.pk])).content)
    assert "demo organisation" in document["author"]["description"]
    assert_valid_claimreview(document)
    assert 'id="demo-organisation"' in Client().get(reverse("publishing:page", args=[claim.pk])).content.decode()
    assert "A demo organisation" in Client().get(reverse("publishing:atom")).content.decode()

    assert login(admin_user).post(URL, form_data()).status_code == 302
    assert 'id="demo-organisation"' not in login(reviewer).get(reverse("claims:list")).content.decode()
    document = json.loads(Client().get(reverse("publishing:jsonld", args=[claim.pk])).content)
    assert document["author"] == {
        "@type": "Organization", "name": "Boston Desk Media", "url": "https://bostondesk.news/",
        "logo": {"@type": "ImageObject", "url": "https://bostondesk.news/logo.png"},
    }
    assert document["url"] == f"https://checks.bostondesk.news/factchecks/{claim.pk}/"
    assert_valid_claimreview(document)
    assert 'id="demo-organisation"' not in Client().get(reverse("publishing:page", args=[claim.pk])).content.decode()


def test_an_admin_edits_the_organisation_audited(admin_user) -> None:  # type: ignore[no-untyped-def]
    client = login(admin_user)
    page = client.get(URL)
    assert page.status_code == 200 and 'name="label_misleading"' in page.content.decode()
    data = form_data(label_misleading="Misleading framing", value_misleading="3", credit_reviewers="on")
    response = client.post(URL, data)
    assert response.status_code == 302 and response["Location"] == URL
    organisation = Organisation.objects.get()
    assert (organisation.name, organisation.public_base_url, organisation.publisher, organisation.is_demo, organisation.credit_reviewers) == (
        "Boston Desk", "https://checks.bostondesk.news", "Boston Desk Media", False, True
    )
    assert organisation.rating_label("misleading") == "Misleading framing" and organisation.rating_value("misleading") == 3
    event = AuditEvent.objects.get(object_type="organisation", verb="organisation.update")
    assert event.actor == admin_user
    assert event.before["name"] == "Factcheck desk" and event.after["name"] == "Boston Desk"
    assert event.after["rating_scale"]["misleading"] == {"label": "Misleading framing", "value": 3}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("url", "http://localhost:8000/", "points at this machine"),
        ("url", "https://desk.example.org/", "reserved example domain"),
        ("public_base_url", "http://127.0.0.1/", "points at this machine"),
        ("url", "not a url at all", "Enter a valid URL"),
        ("name", "", "This field is required"),
        ("value_true", "9", "less than or equal to 5"),
        ("value_true", "1", "True must rate higher than False"),
        ("label_false", "", "This field is required"),
    ],
)
def test_bad_values_are_refused_with_the_reason_and_nothing_is_saved(admin_user, field: str, value: str, message: str) -> None:  # type: ignore[no-untyped-def]
    before = organisation_current().name
    response = login(admin_user).post(URL, form_data(**{field: value}))
    assert response.status_code == 400 and message in response.content.decode()
    organisation = Organisation.objects.get()
    assert (organisation.name, organisation.is_demo) == (before, organisation.is_demo)
    assert not AuditEvent.objects.filter(verb="organisation.update").exists()


def test_only_admins_reach_the_organisation_page(reviewer, editor, outsider, admin_user) -> None:  # type: ignore[no-untyped-def]
    for user in (reviewer, editor, outsider):
        assert login(user).get(URL).status_code == 403
        assert login(user).post(URL, form_data()).status_code == 403
    anonymous = Client().get(URL)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login/")
    assert login(admin_user).put(URL).status_code == 405
    assert not AuditEvent.objects.filter(verb="organisation.update").exists()
    assert 'href="/organisation/"' in login(admin_user).get(reverse("claims:list")).content.decode()
