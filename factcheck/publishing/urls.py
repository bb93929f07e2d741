"""Public fact-check pages under /factchecks/ (no login) and the organisation's admin page."""

from django.urls import path

from factcheck.publishing import views

app_name = "publishing"

urlpatterns = [
    path("factchecks/", views.factcheck_index, name="index"),
    path("factchecks/feed.jsonld", views.factcheck_feed, name="feed"),
    path("factchecks/feed.atom", views.factcheck_atom, name="atom"),
    path("factchecks/<int:claim_id>/", views.factcheck_page, name="page"),
    path("factchecks/<int:claim_id>.jsonld", views.factcheck_jsonld, name="jsonld"),
    path("factchecks/<int:claim_id>/withdraw/", views.factcheck_withdraw, name="withdraw"),
    path("organisation/", views.organisation_edit, name="organisation"),
]
