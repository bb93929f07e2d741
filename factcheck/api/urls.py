"""/api/v1/: every view authenticates itself (token or session) and answers 401/403 rather
than the login redirect of LoginRequiredMiddleware, hence login_not_required."""

from django.contrib.auth.decorators import login_not_required
from django.urls import path, re_path

from factcheck.api import views

app_name = "api"

urlpatterns = [
    path("", login_not_required(views.ApiRoot.as_view()), name="root"),
    path("claims/", login_not_required(views.ClaimList.as_view()), name="claims"),
    path("claims/<int:pk>/", login_not_required(views.ClaimDetail.as_view()), name="claim"),
    path("clusters/", login_not_required(views.ClusterList.as_view()), name="clusters"),
    path("clusters/<int:pk>/", login_not_required(views.ClusterDetail.as_view()), name="cluster"),
    path("verdicts/", login_not_required(views.VerdictList.as_view()), name="verdicts"),
    path("verdicts/<int:pk>/", login_not_required(views.VerdictDetail.as_view()), name="verdict"),
    path("schema/", login_not_required(views.SchemaView.as_view()), name="schema"),
    re_path(r"", login_not_required(views.UnknownEndpoint.as_view()), name="unknown"),
]
