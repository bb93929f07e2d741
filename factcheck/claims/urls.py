from django.urls import path

from factcheck.claims import views

app_name = "claims"

urlpatterns = [
    path("", views.claim_list, name="list"),
    path("<int:pk>/", views.claim_detail, name="detail"),
]
