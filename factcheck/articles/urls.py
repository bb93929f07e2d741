from django.urls import path

from factcheck.articles import views

app_name = "articles"

urlpatterns = [
    path("", views.import_new, name="new"),
    path("upload/", views.import_upload, name="upload"),
    path("paste/", views.import_paste, name="paste"),
    path("<int:pk>/", views.import_detail, name="detail"),
    path("<int:pk>/errors.csv", views.import_errors_csv, name="errors"),
    path("<int:pk>/resume/", views.import_resume, name="resume"),
]
