from django.urls import path

from factcheck.factchecks import views

app_name = "factchecks"

urlpatterns = [
    path("", views.library_list, name="list"),
    path("<int:pk>/", views.factcheck_detail, name="detail"),
    path("attach/", views.match_attach, name="attach"),
    path("import/", views.import_new, name="import"),
    path("import/upload/", views.import_upload, name="upload"),
    path("import/<int:pk>/", views.import_detail, name="import_detail"),
    path("matches/<int:pk>/decide/", views.match_decide, name="match_decide"),
    path("matches/<int:pk>/verdict/", views.match_verdict_start, name="match_verdict"),
]
