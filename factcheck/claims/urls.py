from django.urls import path

from factcheck.claims import views

app_name = "claims"

urlpatterns = [
    path("", views.claim_list, name="list"),
    path("count/", views.claim_count, name="count"),
    path("mine/", views.my_claims, name="mine"),
    path("inbox/", views.inbox, name="inbox"),
    path("approvals/", views.approvals, name="approvals"),
    path("<int:pk>/", views.claim_detail, name="detail"),
    path("<int:pk>/triage/", views.claim_triage, name="triage"),
    path("<int:pk>/assign/", views.claim_assign, name="assign"),
    path("<int:pk>/tags/", views.claim_tags, name="tags"),
    path("<int:pk>/notes/", views.claim_annotate, name="annotate"),
    path("<int:pk>/evidence/", views.claim_add_evidence, name="evidence"),
    path("<int:pk>/verdict/", views.claim_verdict, name="verdict"),
    path("<int:pk>/split/", views.claim_split, name="split"),
    path("verdicts/<int:pk>/review/", views.verdict_review, name="verdict-review"),
    # The triage queue: row actions answer with the row (htmx) or go back to the queue.
    path("<int:pk>/row/", views.queue_row_action, name="row_action"),
    path("<int:pk>/row/appearances/", views.queue_row_appearances, name="row_appearances"),
    path("article-titles/", views.article_titles, name="article_titles"),
    path("views/", views.saved_view_create, name="view_create"),
    path("views/<int:pk>/", views.saved_view_open, name="view_open"),
    path("views/<int:pk>/delete/", views.saved_view_delete, name="view_delete"),
    path("bulk/", views.bulk, name="bulk"),
    path("bulk/<int:pk>/", views.bulk_detail, name="bulk_detail"),
    path("ranking/", views.ranking_weights, name="ranking"),
]
