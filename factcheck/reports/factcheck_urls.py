"""Published verdicts: the page a reader (or a search engine) sees and its ClaimReview."""

from django.urls import path

from factcheck.reports import views

app_name = "factchecks"

urlpatterns = [
    path("feed.jsonld", views.factcheck_feed, name="feed"),
    path("<int:claim_id>/", views.factcheck_page, name="page"),
    path("<int:claim_id>.jsonld", views.factcheck_jsonld, name="jsonld"),
]
