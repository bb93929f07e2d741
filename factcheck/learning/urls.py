from django.urls import path

from factcheck.learning import views

app_name = "learning"

urlpatterns = [
    path("", views.version_list, name="versions"),
    path("versions/<int:pk>/promote/", views.version_promote, name="promote"),
    path("<str:kind>/rollback/", views.version_rollback, name="rollback"),
    path("<str:kind>/refit/", views.refit, name="refit"),
]
