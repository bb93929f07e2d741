from django.urls import path

from factcheck.sources import views

app_name = "sources"

urlpatterns = [
    path("", views.source_list, name="list"),
    path("<int:pk>/", views.source_detail, name="detail"),
    path("<int:pk>/poll/", views.source_poll_now, name="poll"),
    path("links/", views.link_new, name="link_new"),
    path("links/submit/", views.link_submit, name="link_submit"),
    path("links/<int:pk>/", views.link_detail, name="link_detail"),
]
