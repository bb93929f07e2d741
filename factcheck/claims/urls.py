from django.urls import path

from factcheck.claims.queue import views as queue_views
from factcheck.claims.ranking import views as ranking_views
from factcheck.claims.workflow import views as workflow_views

app_name = "claims"

urlpatterns = [
    path("", queue_views.claim_list, name="list"),
    path("count/", queue_views.claim_count, name="count"),
    path("mine/", queue_views.my_claims, name="mine"),
    path("inbox/", queue_views.inbox, name="inbox"),
    path("approvals/", queue_views.approvals, name="approvals"),
    path("<int:pk>/", workflow_views.claim_detail, name="detail"),
    path("<int:pk>/triage/", workflow_views.claim_triage, name="triage"),
    path("<int:pk>/assign/", workflow_views.claim_assign, name="assign"),
    path("<int:pk>/tags/", workflow_views.claim_tags, name="tags"),
    path("<int:pk>/notes/", workflow_views.claim_annotate, name="annotate"),
    path("<int:pk>/evidence/", workflow_views.claim_add_evidence, name="evidence"),
    path("<int:pk>/verdict/", workflow_views.claim_verdict, name="verdict"),
    path("<int:pk>/split/", workflow_views.claim_split, name="split"),
    path("verdicts/<int:pk>/review/", workflow_views.verdict_review, name="verdict-review"),
    # The triage queue: row actions answer with the row (htmx) or go back to the queue.
    path("<int:pk>/row/", queue_views.queue_row_action, name="row_action"),
    path("<int:pk>/row/appearances/", queue_views.queue_row_appearances, name="row_appearances"),
    path("article-titles/", queue_views.article_titles, name="article_titles"),
    path("views/", queue_views.saved_view_create, name="view_create"),
    path("views/<int:pk>/", queue_views.saved_view_open, name="view_open"),
    path("views/<int:pk>/delete/", queue_views.saved_view_delete, name="view_delete"),
    path("bulk/", queue_views.bulk, name="bulk"),
    path("bulk/<int:pk>/", queue_views.bulk_detail, name="bulk_detail"),
    path("ranking/", ranking_views.ranking_weights, name="ranking"),
]
