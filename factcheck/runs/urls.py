from django.urls import path

from factcheck.runs import views

app_name = "runs"

urlpatterns = [
    path("", views.run_list, name="list"),
    path("<int:pk>/", views.run_detail, name="detail"),
    path("<int:pk>/rerun/", views.run_rerun, name="rerun"),
]
