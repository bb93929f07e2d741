from django.urls import path

from factcheck.claims import views

app_name = "claims"

urlpatterns = [
    path("", views.claim_list, name="list"),
    path("<int:pk>/", views.claim_detail, name="detail"),
    path("<int:pk>/triage/", views.claim_triage, name="triage"),
    path("views/", views.saved_view_create, name="view_create"),
    path("views/<int:pk>/", views.saved_view_open, name="view_open"),
    path("views/<int:pk>/delete/", views.saved_view_delete, name="view_delete"),
    path("bulk/", views.bulk, name="bulk"),
    path("bulk/<int:pk>/", views.bulk_detail, name="bulk_detail"),
]
