from django.urls import path

from factcheck.claims import views

app_name = "claims"

urlpatterns = [
    path("", views.claim_list, name="list"),
    path("<int:pk>/", views.claim_detail, name="detail"),
    path("<int:pk>/triage/", views.claim_triage, name="triage"),
    path("<int:pk>/assign/", views.claim_assign, name="assign"),
    path("<int:pk>/tags/", views.claim_tags, name="tags"),
    path("<int:pk>/notes/", views.claim_annotate, name="annotate"),
    path("<int:pk>/evidence/", views.claim_add_evidence, name="evidence"),
    path("<int:pk>/verdict/", views.claim_verdict, name="verdict"),
    path("verdicts/<int:pk>/review/", views.verdict_review, name="verdict-review"),
]
